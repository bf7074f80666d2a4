package io.outpost.client.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outpost.client.OutpostException;
import io.outpost.client.testing.FakeOutpost;
import io.outpost.client.testing.FakeServer;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class OutpostCliTest {
    private FakeServer server;
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    @BeforeEach
    void start() throws Exception {
        server = FakeServer.start(new FakeOutpost());
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private int run(String... args) {
        OutpostCli cli = new OutpostCli();
        cli.out = new PrintWriter(out, true);
        cli.err = new PrintWriter(err, true);
        cli.env = Map.of("OUTPOST_SERVER", server.url());
        return OutpostCli.run(cli, args);
    }

    @Test
    void findPrintsCsv() {
        assertThat(run("find", "/A/Time", "250", "-c", "1-2", "--format", "csv", "--no-align")).isZero();
        assertThat(out.toString()).isEqualTo("channel,since,until,value,label\n1,200,300,1002,c1@200\n"
                + "2,200,300,2002,c2@200\n");
    }

    @Test
    void browsePrintsJsonInTheWireFormatsJsonForm() {
        assertThat(run("browse", "/A/Time", "0", "150", "-c", "0", "--format=json")).isZero();
        assertThat(out.toString()).startsWith("{\"kind\":\"iovs\",\"folder\":\"/A/Time\",\"tag\":\"HEAD\"")
                .contains("[0,0,100,0,\"c0@0\"]", "[0,100,200,1,\"c0@100\"]").contains("\"rowCount\":2}");
    }

    @Test
    void catalogueCommandsPrintTables() {
        assertThat(run("folders")).isZero();
        assertThat(out.toString()).contains("path", "/A/Time", "run-lumi", "(3 rows)");
        assertThat(run("channels", "/A/Time", "--server", server.url())).isZero();
        assertThat(run("count", "/A/Time", "min", "999")).isZero();
        assertThat(out.toString()).contains("(10 rows)", "  100\n");
        assertThat(run("tag", "/A/Time", "X-1", "--format", "csv")).isZero();
        assertThat(out.toString()).contains("X-1-resolved");
    }

    @Test
    void exitCodesSayWhatWentWrong() throws Exception {
        assertThat(run("channels", "/A/Missing")).isEqualTo(3);
        assertThat(err.toString()).contains("NOT_FOUND");
        assertThat(run("find", "/A/Time", "yesterday")).isEqualTo(2);
        assertThat(run("find", "/A/Time")).isEqualTo(2);
        assertThat(run("browse", "/A/Time", "max", "min")).isEqualTo(2);
        assertThat(run("nodes", "--format", "xml")).isEqualTo(2);
        assertThat(run()).isEqualTo(2);
        assertThat(run("folders", "--server", FakeServer.deadUrl(), "--retries", "0")).isEqualTo(5);
        assertThat(err.toString()).contains("UNAVAILABLE");
    }

    @Test
    void everyRouteGivingAnUnusableAnswerIsExit6AndAnyRouteWithoutAnswerIsExit5() {
        OutpostException unusable = unavailable(OutpostException.Kind.UNSIGNED, OutpostException.Kind.CORRUPT,
                OutpostException.Kind.STALE);
        OutpostException mixed = unavailable(OutpostException.Kind.UNSIGNED, OutpostException.Kind.UNAVAILABLE);
        assertThat(OutpostCli.exitCode(unusable)).isEqualTo(6);
        assertThat(OutpostCli.exitCode(mixed)).isEqualTo(5);
        assertThat(OutpostCli.exitCode(unavailable())).isEqualTo(5);
    }

    private static OutpostException unavailable(OutpostException.Kind... attempts) {
        OutpostException e = new OutpostException(OutpostException.Kind.UNAVAILABLE, "every route failed");
        for (OutpostException.Kind k : attempts) {
            e.addSuppressed(new OutpostException(k, "an attempt"));
        }
        return e;
    }

    @Test
    void directMeansNoProxyWhateverTheEnvironmentSays() throws Exception {
        String deadProxy = FakeServer.deadUrl();
        OutpostCli cli = new OutpostCli();
        cli.out = new PrintWriter(out, true);
        cli.err = new PrintWriter(err, true);
        cli.env = Map.of("OUTPOST_SERVER", server.url(), "OUTPOST_PROXY", deadProxy);
        assertThat(OutpostCli.run(cli, new String[] {"--direct", "-v", "nodes"})).isZero();
        assertThat(err.toString()).doesNotContain(deadProxy.replace("http://", ""));
        OutpostCli viaProxy = new OutpostCli();
        viaProxy.out = new PrintWriter(out, true);
        viaProxy.err = new PrintWriter(err, true);
        viaProxy.env = cli.env;
        OutpostCli.run(viaProxy, new String[] {"-v", "--retries", "0", "nodes"});
        assertThat(err.toString()).contains(deadProxy.replace("http://", ""));
    }

    @Test
    void timesFollowTheContract() {
        assertThat(CliTime.parse("min")).isZero();
        assertThat(CliTime.parse("max")).isEqualTo(Long.MAX_VALUE);
        assertThat(CliTime.parse("7/5")).isEqualTo(CliTime.parse("7:5")).isEqualTo((7L << 32) | 5);
        assertThat(CliTime.parse("1970-01-01T00:00:00.000012345Z")).isEqualTo(12345);
        assertThat(CliTime.parse("2026-01-01T02:00+02:00")).isEqualTo(CliTime.parse("2026-01-01"));
        assertThat(CliTime.parse("2262-04-11T23:47:16.854775807Z")).isEqualTo(Long.MAX_VALUE);
        for (String bad : new String[] {"inf", "2026-01-01 10:00", "1969-12-31", "2262-04-11T23:47:16.854775808Z",
            "9223372036854775808", "2026-02-30", "2026-01-01T24:00", "2147483648/1", "-1", ""}) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> CliTime.parse(bad))
                    .as(bad).isInstanceOf(IllegalArgumentException.class);
        }
    }

    /** One rule for keys as text: the form decides in which folders a key may be read. */
    @Test
    void aKeyIsReadOnlyInTheFoldersItsFormFits() {
        assertThatThrownBy(() -> CliTime.key("320").in(true)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("'320' is not a run-lumi key: write RUN/LUMI, e.g. 320/0 for run 320, lumi 0; a raw key is"
                        + " written raw:320");
        assertThatThrownBy(() -> CliTime.key("1297080123542").in(true))
                .hasMessageContaining("(302/150 is the raw key 1297080123542); a raw key is written raw:1297080123542");
        assertThat(CliTime.key("320").in(false)).isEqualTo(320);
        assertThat(CliTime.key("raw:320").in(true)).isEqualTo(320);
        assertThat(CliTime.key("raw:1767225600000000000").in(false)).isEqualTo(CliTime.parse("2026-01-01"));
        assertThat(CliTime.key("302/150").in(true)).isEqualTo((302L << 32) | 150);
        assertThatThrownBy(() -> CliTime.key("302/150").in(false)).hasMessageContaining("is RUN/LUMI, not a time");
        assertThatThrownBy(() -> CliTime.key("2026-01-01").in(true)).hasMessageContaining("is a date");
        assertThat(CliTime.key("min").in(true)).isZero();
        assertThat(CliTime.key("max").in(false)).isEqualTo(Long.MAX_VALUE);
        for (String bad : new String[] {"raw:", "raw:-1", "raw:x", "raw:9223372036854775808", "RAW:5"}) {
            assertThatThrownBy(() -> CliTime.key(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void floatingPointIsTheShortestTextFixedOrScientific() {
        assertThat(ValueText.of(1002.0)).isEqualTo("1002");
        assertThat(ValueText.of(0.25)).isEqualTo("0.25");
        assertThat(ValueText.of(1e20)).isEqualTo("1e+20");
        assertThat(ValueText.of(1.5e-7)).isEqualTo("1.5e-07");
        assertThat(ValueText.of(100.0)).isEqualTo("100");
        assertThat(ValueText.of(1e5)).isEqualTo("1e+05");
        assertThat(ValueText.of(0.001)).isEqualTo("0.001");
        assertThat(ValueText.of(-0.0)).isEqualTo("-0");
        assertThat(ValueText.of(106.12f)).isEqualTo("106.12");
        assertThat(ValueText.of(Double.NaN)).isEqualTo("NaN");
        assertThat(ValueText.of(Float.NEGATIVE_INFINITY)).isEqualTo("-Infinity");
        assertThat(ValueText.of(new byte[] {1, 2, 3})).isEqualTo("AQID");
    }
}
