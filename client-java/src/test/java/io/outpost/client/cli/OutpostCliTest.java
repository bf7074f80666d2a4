package io.outpost.client.cli;

import static org.assertj.core.api.Assertions.assertThat;

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
        assertThat(run("find", "/A/Time", "-t", "250", "-c", "1-2", "-o", "csv")).isZero();
        assertThat(out.toString()).isEqualTo("channel,since,until,value,label\n1,200,300,1002.0,c1@200\n"
                + "2,200,300,2002.0,c2@200\n");
    }

    @Test
    void browsePrintsJsonInTheWireFormatsJsonForm() {
        assertThat(run("browse", "/A/Time", "--from", "0", "--to", "150", "-c", "0", "--output", "json")).isZero();
        assertThat(out.toString()).startsWith("{\"kind\":\"iovs\",\"folder\":\"/A/Time\",\"tag\":\"HEAD\"")
                .contains("[0,0,100,0.0,\"c0@0\"]", "[0,100,200,1.0,\"c0@100\"]").contains("\"rowCount\":2}");
    }

    @Test
    void catalogueCommandsPrintTables() {
        assertThat(run("folders")).isZero();
        assertThat(out.toString()).contains("path", "/A/Time", "run-lumi", "(3 rows)");
        assertThat(run("channels", "/A/Time", "--server", server.url())).isZero();
        assertThat(run("count", "/A/Time", "--to", "999")).isZero();
        assertThat(out.toString()).contains("(10 rows)", "  100\n");
        assertThat(run("tags", "/A/Time", "--resolve", "X-1", "-o", "csv")).isZero();
        assertThat(out.toString()).contains("X-1-resolved");
    }

    @Test
    void exitCodesSayWhatWentWrong() throws Exception {
        assertThat(run("channels", "/A/Missing")).isEqualTo(3);
        assertThat(err.toString()).contains("NOT_FOUND");
        assertThat(run("find", "/A/Time", "-t", "yesterday")).isEqualTo(2);
        assertThat(run("find", "/A/Time")).isEqualTo(2);
        assertThat(run("folders", "--server", FakeServer.deadUrl(), "--retries", "0")).isEqualTo(5);
        assertThat(err.toString()).contains("UNAVAILABLE");
    }
}
