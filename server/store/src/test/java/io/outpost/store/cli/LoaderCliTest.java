package io.outpost.store.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.store.IovStore;
import io.outpost.store.db.DatabaseConfig;
import io.outpost.store.model.ChannelSelection;
import io.outpost.store.model.Iov;
import io.outpost.store.model.Node;
import io.outpost.store.model.TagLock;
import io.outpost.store.model.ValidityKey;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The loader command line end to end on a real SQLite file: what it writes is read back through the store. */
class LoaderCliTest {
    @TempDir
    Path dir;

    private final StringWriter err = new StringWriter();

    private int run(String url, String... args) {
        CommandLine cl = LoaderCli.configure(new CommandLine(new LoaderCli()));
        cl.setErr(new PrintWriter(err, true));
        cl.setOut(new PrintWriter(new StringWriter()));
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--url", url));
        return cl.execute(all.toArray(String[]::new));
    }

    @Test
    void createsFoldersLoadsCsvAndJsonTagsLocksAndGenerates() throws Exception {
        String url = "jdbc:sqlite:" + dir.resolve("loader.db");
        assertThat(run(url, "create-folder", "/DET/sv", "--payload", "i:Int32,s:String255", "--parents")).isZero();
        assertThat(run(url, "create-folder", "/DET/mv", "--versioning", "MV", "--keys", "run-lumi", "--payload", "g:Double")).isZero();
        assertThat(run(url, "create-channel", "/DET/sv", "7", "--name", "CH7")).isZero();

        Path csv = dir.resolve("sv.csv");
        Files.writeString(csv, "channel,since,until,i,s\n7,0,10,1,\"a, quoted\"\n7,10,max,2,\n");
        assertThat(run(url, "load", "/DET/sv", csv.toString())).isZero();
        Path json = dir.resolve("mv.json");
        Files.writeString(json, "[{\"channel\":1,\"since\":0,\"until\":\"max\",\"payload\":{\"g\":1.5}},"
                + "{\"channel\":1,\"since\":5,\"until\":8,\"payload\":{\"g\":2.5}}]");
        assertThat(run(url, "load", "/DET/mv", json.toString())).isZero();
        assertThat(run(url, "tag", "/DET/mv", "MV-1")).isZero();
        assertThat(run(url, "lock", "MV-1")).isZero();
        assertThat(run(url, "relate", "DET-ALL", "MV-1")).isZero();
        assertThat(run(url, "generate", "coolBrowse", "--scale", "0.01")).isZero();
        // a bad row refuses the whole file and says so (exit code 2: the input is wrong)
        Path bad = dir.resolve("bad.csv");
        Files.writeString(bad, "channel,since,until,i,s\n8,5,3,1,x\n");
        assertThat(run(url, "load", "/DET/sv", bad.toString())).as(err.toString()).isEqualTo(2);
        assertThat(err.toString()).contains("must be lower than until");

        try (IovStore store = IovStore.open(DatabaseConfig.of(url))) {
            Node sv = store.folder("/DET/sv");
            List<Iov> rows = new ArrayList<>();
            store.browse(sv, 0, ValidityKey.MAX, ChannelSelection.all(), null, rows::add);
            assertThat(rows).hasSize(2);
            assertThat(rows.get(0).payload()).containsExactly(1, "a, quoted");
            assertThat(rows.get(1).payload()).containsExactly(2, null);
            assertThat(rows.get(1).until()).isEqualTo(ValidityKey.MAX);
            Node mv = store.folder("/DET/mv");
            assertThat(store.count(mv, 0, ValidityKey.MAX, ChannelSelection.all(), null)).isEqualTo(3);
            assertThat(store.tag("MV-1").lock()).isEqualTo(TagLock.LOCKED);
            assertThat(store.resolveTag(mv, "DET-ALL").name()).isEqualTo("MV-1");
            Node gen = store.folder("/LOAD/coolBrowse");
            assertThat(store.count(gen, 0, ValidityKey.MAX, ChannelSelection.all(), null)).isEqualTo(10 * 200);
        }
    }

    @Test
    void truncatesDeletesTagsAndRelatesOnANode() throws Exception {
        String url = "jdbc:sqlite:" + dir.resolve("cool.db");
        assertThat(run(url, "create-folder", "/DET/sv", "--payload", "i:Int32", "--parents")).isZero();
        assertThat(run(url, "create-folder", "/DET/mv", "--versioning", "MV", "--payload", "i:Int32")).isZero();
        assertThat(run(url, "create-channel", "/DET/sv", "3", "--name", "C3")).isZero();
        Path sv = dir.resolve("sv.csv");
        Files.writeString(sv, "channel,since,until,i\n3,0,max,1\n4,0,10,2\n4,10,max,3\n");
        assertThat(run(url, "load", "/DET/sv", sv.toString())).isZero();
        Path mv = dir.resolve("mv.csv");
        Files.writeString(mv, "channel,since,until,i\n1,0,max,1\n");
        assertThat(run(url, "load", "/DET/mv", mv.toString())).isZero();

        assertThat(run(url, "truncate", "/DET/sv", "50", "--channels", "name:C3")).isZero();
        // channel 4's IOV valid at 5 is closed: refused, nothing changes (exit 2: the request was wrong)
        assertThat(run(url, "truncate", "/DET/sv", "5")).isEqualTo(2);
        assertThat(err.toString()).contains("not open-ended");

        // the child tag does not exist yet: created empty in the named node, then filled by tagging the HEAD
        assertThat(run(url, "relate", "DET-1", "MV-1", "--node", "/DET/mv")).isZero();
        assertThat(run(url, "tag", "/DET/mv", "MV-1")).isZero();
        assertThat(run(url, "lock", "MV-1", "--node", "/DET")).as(err.toString()).isEqualTo(2);
        assertThat(err.toString()).contains("no tag 'MV-1' in '/DET'");
        assertThat(run(url, "lock", "MV-1", "--node", "/DET/mv")).isZero();
        assertThat(run(url, "delete-tag", "/DET/mv", "MV-1")).isEqualTo(2);
        assertThat(err.toString()).contains("locked");
        assertThat(run(url, "lock", "MV-1", "--node", "/DET/mv", "--status", "unlocked")).isZero();
        assertThat(run(url, "delete-tag", "/DET/mv", "MV-1")).isZero();

        try (IovStore store = IovStore.open(DatabaseConfig.of(url))) {
            List<Iov> rows = new ArrayList<>();
            store.browse(store.folder("/DET/sv"), 0, ValidityKey.MAX, ChannelSelection.all(), null, rows::add);
            assertThat(rows).extracting(Iov::channelId, Iov::until)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple(3L, 50L),
                            org.assertj.core.groups.Tuple.tuple(4L, 10L),
                            org.assertj.core.groups.Tuple.tuple(4L, ValidityKey.MAX));
            Node folder = store.folder("/DET/mv");
            // the relation still uses MV-1: it stays, empty
            assertThat(store.resolveTag(folder, "DET-1").name()).isEqualTo("MV-1");
            assertThat(store.count(folder, 0, ValidityKey.MAX, ChannelSelection.all(), "DET-1")).isZero();
        }
    }
}
