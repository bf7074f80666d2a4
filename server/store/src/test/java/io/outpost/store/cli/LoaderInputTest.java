package io.outpost.store.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.store.IovStore;
import io.outpost.store.db.DatabaseConfig;
import io.outpost.store.model.ChannelSelection;
import io.outpost.store.model.Iov;
import io.outpost.store.model.ValidityKey;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * What a physicist types into a file is stored as meant or refused with the file and the line: keys, doubles,
 * quotes and the same IOV twice. Every refusal stores nothing (read back through the store).
 */
class LoaderInputTest {
    @TempDir
    Path dir;

    private final StringWriter err = new StringWriter();
    private String url;

    private int run(String... args) {
        err.getBuffer().setLength(0);
        CommandLine cl = LoaderCli.configure(new CommandLine(new LoaderCli()));
        cl.setErr(new PrintWriter(err, true));
        cl.setOut(new PrintWriter(new StringWriter()));
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--url", url));
        return cl.execute(all.toArray(String[]::new));
    }

    @BeforeEach
    void folders() {
        url = "jdbc:sqlite:" + dir.resolve("input.db");
        assertThat(run("create-folder", "/K/rl", "--keys", "run-lumi", "--payload", "g:Double", "--parents",
                "--create")).isZero();
        assertThat(run("create-folder", "/K/mv", "--keys", "run-lumi", "--versioning", "MV", "--payload",
                "g:Double")).isZero();
        assertThat(run("create-folder", "/K/t", "--payload", "g:Double,f:Float")).isZero();
    }

    private Path file(String name, String text) throws Exception {
        Path f = dir.resolve(name);
        Files.writeString(f, text);
        return f;
    }

    private List<Iov> stored(String folder) {
        try (IovStore store = IovStore.open(DatabaseConfig.of(url))) {
            List<Iov> rows = new ArrayList<>();
            store.browse(store.folder(folder), 0, ValidityKey.MAX, ChannelSelection.all(), null, rows::add);
            return rows;
        }
    }

    @Test
    void aBareNumberIsNoRunLumiKeyAndRawKeysAreSpelledAsSuch() throws Exception {
        Path bare = file("bare.csv", "channel,since,until,g\n1,320/0,max,1.5\n1,320,max,1.5\n");
        assertThat(run("load", "/K/rl", bare.toString())).isEqualTo(2);
        assertThat(err.toString()).contains(bare + " line 3: '320' is not a run-lumi key")
                .contains("320/0 for run 320, lumi 0").contains("raw:320");
        Path big = file("big.json", "[\n{\"channel\":1,\"since\":1374389534720,\"until\":\"max\"}\n]");
        assertThat(run("load", "/K/rl", big.toString())).isEqualTo(2);
        assertThat(err.toString()).contains(big + " line 2: '1374389534720' is not a run-lumi key")
                .contains("320/0 is the raw key 1374389534720");
        assertThat(stored("/K/rl")).isEmpty();

        Path good = file("good.csv", "channel,since,until,g\n1,320/0,raw:1378684502016,1.5\n2,raw:0,max,2\n");
        assertThat(run("load", "/K/rl", good.toString())).as(err.toString()).isZero();
        assertThat(stored("/K/rl")).extracting(Iov::since, Iov::until).containsExactly(
                org.assertj.core.groups.Tuple.tuple(ValidityKey.fromRunLumi(320, 0), ValidityKey.fromRunLumi(321, 0)),
                org.assertj.core.groups.Tuple.tuple(0L, ValidityKey.MAX));
        // time folders keep their forms: ns since 1970 and ISO dates
        Path times = file("t.csv", "channel,since,until,g,f\n1,1767225600000000000,2026-01-02,1,1\n");
        assertThat(run("load", "/K/t", times.toString())).as(err.toString()).isZero();
        assertThat(run("truncate", "/K/rl", "321")).isEqualTo(2);
        assertThat(err.toString()).contains("321/0");
    }

    @Test
    void doublesAreKeptExactlyOrRefusedWithFileLineAndColumn() throws Exception {
        String[][] cases = {
            {"NaN", "column 4, field 'g': 'NaN' is not a valid Double: NaN and infinities are not stored"},
            {"-Infinity", "column 4, field 'g': '-Infinity' is not a valid Double: NaN and infinities"},
            {"1e400", "column 4, field 'g': '1e400' is not a valid Double: beyond the range of a Double"},
            {"1e-400", "column 4, field 'g': '1e-400' is not a valid Double: too close to zero"},
            {"0x1p3", "column 4, field 'g': '0x1p3' is not a valid Double: write a decimal number"},
            {"1.5f", "column 4, field 'g': '1.5f' is not a valid Double: write a decimal number"},
        };
        for (String[] c : cases) {
            Path f = file("d.csv", "channel,since,until,g,f\n1,0,10,1.5,1\n1,10,20," + c[0] + ",1\n");
            assertThat(run("load", "/K/t", f.toString())).as(c[0]).isEqualTo(2);
            assertThat(err.toString()).as(c[0]).contains(f + " line 3: " + c[1]);
        }
        Path floatOverflow = file("f.csv", "channel,since,until,g,f\n1,0,10,1.5,1e39\n");
        assertThat(run("load", "/K/t", floatOverflow.toString())).isEqualTo(2);
        assertThat(err.toString()).contains("line 2").contains("out of range for Float");
        Path json = file("d.json", "[{\"channel\":1,\"since\":0,\"until\":10,\"payload\":{\"g\":1.5}},\n"
                + " {\"channel\":1,\"since\":10,\"until\":20,\"payload\":{\"g\":1e400}}]");
        assertThat(run("load", "/K/t", json.toString())).isEqualTo(2);
        assertThat(err.toString()).contains(json + " line 2: field 'g'").contains("beyond the range of a Double");
        Path jsonNan = file("n.json", "[{\"channel\":1,\"since\":0,\"until\":10,\"payload\":{\"g\":\"NaN\"}}]");
        assertThat(run("load", "/K/t", jsonNan.toString())).isEqualTo(2);
        assertThat(err.toString()).contains(jsonNan + " line 1: field 'g'").contains("NaN and infinities");
        assertThat(stored("/K/t")).isEmpty();

        Path exact = file("e.csv", "channel,since,until,g,f\n1,0,10,1.7976931348623157e308,0.1\n1,10,20,4.9e-324,-0\n");
        assertThat(run("load", "/K/t", exact.toString())).as(err.toString()).isZero();
        assertThat(stored("/K/t")).extracting(i -> i.payload()[0])
                .containsExactly(Double.MAX_VALUE, Double.MIN_VALUE);
    }

    @Test
    void anUnterminatedQuoteIsRefusedWithFileAndLine() throws Exception {
        assertThat(run("create-folder", "/K/s", "--payload", "label:String255")).isZero();
        Path f = file("q.csv", "channel,since,until,label\n1,0,10,\"fine, quoted\"\n1,10,20,\"never closed\n");
        assertThat(run("load", "/K/s", f.toString())).isEqualTo(2);
        assertThat(err.toString()).contains(f + " line 3: the quote opened at character 9 of column 4 is not closed");
        assertThat(stored("/K/s")).isEmpty();
    }

    @Test
    void theSameIovTwiceInOneFileIsRefusedAlikeInSvAndMvFolders() throws Exception {
        for (String folder : List.of("/K/rl", "/K/mv")) {
            Path f = file("dup.csv", "channel,since,until,g\n1,300/0,301/0,1\n2,300/0,301/0,1\n\n1,300:0,301/0,2\n");
            assertThat(run("load", folder, f.toString())).as(folder).isEqualTo(2);
            assertThat(err.toString()).as(folder).contains(f + " line 5: the IOV of channel 1 from 300:0 to 301/0 is"
                    + " given twice, also at " + f + " line 2 (each IOV once)");
            assertThat(stored(folder)).as(folder).isEmpty();
        }
    }

    @Test
    void aRefusalOfTheStoreNamesFileLineAndKeysAsTyped() throws Exception {
        Path first = file("first.csv", "channel,since,until,g\n1,300/0,310/0,1\n");
        assertThat(run("load", "/K/rl", first.toString())).isZero();
        Path overlapping = file("over.csv", "channel,since,until,g\n2,300/0,max,1\n1,305/7,306/0,2\n");
        assertThat(run("load", "/K/rl", overlapping.toString())).isEqualTo(4);
        assertThat(err.toString()).contains(overlapping + " line 3: channel 1: [305/7, 306/0) overlaps stored IOVs"
                + " (the last one is [300/0, 310/0))").doesNotContain("object #");
        Path inFile = file("inner.csv", "channel,since,until,g\n3,300/0,310/0,1\n3,305/0,306/0,2\n");
        assertThat(run("load", "/K/rl", inFile.toString())).isEqualTo(4);
        assertThat(err.toString()).contains(inFile + " line 3: channel 3: [305/0, 306/0) overlaps [300/0, 310/0)");
        assertThat(stored("/K/rl")).hasSize(1);
        Path userTag = file("ut.csv", "channel,since,until,g\n4,300/0,310/0,1\n");
        assertThat(run("load", "/K/rl", userTag.toString(), "--user-tag", "UT")).isEqualTo(2);
        assertThat(err.toString()).contains(userTag + " line 2: channel 4, [300/0, 310/0): '/K/rl' is single-version")
                .doesNotContain("object #");
    }
}
