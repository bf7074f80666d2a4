package io.outpost.store.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outpost.store.IovStore;
import io.outpost.store.db.DatabaseConfig;
import io.outpost.store.model.ChannelSelection;
import io.outpost.store.model.KeyType;
import io.outpost.store.model.NewIov;
import io.outpost.store.model.Node;
import io.outpost.store.model.PayloadSpec;
import io.outpost.store.model.ValidityKey;
import io.outpost.store.model.Versioning;
import io.outpost.testkit.MariaDbServer;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The loader's export and sync commands end to end on real SQLite files, with their refusals and exit codes. */
class SnapshotCommandsTest {
    @TempDir
    Path dir;

    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        CommandLine cl = LoaderCli.configure(new CommandLine(new LoaderCli()));
        cl.setErr(new PrintWriter(err, true));
        cl.setOut(new PrintWriter(new StringWriter()));
        return cl.execute(args);
    }

    @Test
    void exportServesReadOnlyAndSyncCatchesUp() throws Exception {
        String src = "jdbc:sqlite:" + dir.resolve("source.db");
        Path snap = dir.resolve("snap.db");
        try (IovStore s = IovStore.open(DatabaseConfig.of(src))) {
            Node mv = s.createFolder("/DET/mv", Versioning.MULTI_VERSION, KeyType.RUN_LUMI, PayloadSpec.parse("g:Double"),
                    "", true);
            Node sv = s.createFolder("/DET/sv", Versioning.SINGLE_VERSION, KeyType.TIME, PayloadSpec.parse("i:Int32"), "",
                    false);
            s.store(mv, List.of(new NewIov(1, 0, 50, 1.5), new NewIov(1, 50, ValidityKey.MAX, 2.5)));
            s.store(sv, List.of(new NewIov(0, 10, 20, 1), new NewIov(0, 200, 300, 2)));
            s.tagCurrentHead(mv, "MV-1", "");
            s.createTagRelation("DET-ALL", "MV-1");
            s.createTagRelation("GT", "DET-ALL");
        }
        // one range for time and run-lumi folders means nothing: refused, and no file is left
        assertThat(run("export", "--url", src, "--global-tag", "GT", "--from", "0", "--to", "raw:100", "--out",
                snap.toString())).isEqualTo(2);
        assertThat(err.toString()).contains("--time-from/--time-to and --run-from/--run-to");
        assertThat(snap).doesNotExist();
        assertThat(run("export", "--url", src, "--global-tag", "GT", "--time-from", "0", "--time-to", "100", "--out",
                snap.toString())).isEqualTo(2);
        assertThat(err.toString()).contains("'/DET/mv' has run-lumi keys, and no run range was given");
        assertThat(run("export", "--url", src, "--global-tag", "GT", "--time-from", "0", "--from", "0", "--out",
                snap.toString())).isEqualTo(2);
        assertThat(snap).doesNotExist();
        assertThat(run("export", "--url", src, "--global-tag", "GT", "--time-from", "0", "--time-to", "100",
                "--run-from", "0/0", "--run-to", "0/60", "--out", snap.toString())).as(err.toString()).isZero();
        assertThat(run("export", "--url", src, "--global-tag", "GT", "--time-from", "0", "--time-to", "100",
                "--run-from", "0/0", "--run-to", "0/60", "--out", snap.toString())).isEqualTo(2);
        assertThat(err.toString()).contains("exists");
        // a bare number is no run-lumi key, and in the one range of --from/--to could be either kind
        assertThat(run("export", "--url", src, "--global-tag", "GT", "--time-from", "0", "--time-to", "100",
                "--run-from", "0/0", "--run-to", "60", "--out", dir.resolve("bare.db").toString())).isEqualTo(2);
        assertThat(err.toString()).contains("'60' is not a run-lumi key: write RUN/LUMI, e.g. 60/0");
        assertThat(run("export", "--url", src, "--global-tag", "GT", "--from", "0", "--to", "100", "--out",
                dir.resolve("bare.db").toString())).isEqualTo(2);
        assertThat(err.toString()).contains("'100' could be a time (ns since 1970) or a raw run-lumi key");
        assertThat(run("export", "--url", src, "--global-tag", "NOPE", "--from", "0", "--to", "raw:100", "--out",
                dir.resolve("nope.db").toString())).isEqualTo(3);   // not found
        assertThat(err.toString()).contains("no tag 'NOPE'");
        assertThat(dir.resolve("nope.db")).doesNotExist();

        Path csv = dir.resolve("more.csv");
        Files.writeString(csv, "channel,since,until,i\n0,20,30,3\n");
        assertThat(run("load", "/DET/sv", csv.toString(), "--url", "jdbc:sqlite:" + snap)).isEqualTo(4);   // refused
        assertThat(err.toString()).contains("read-only");

        assertThat(run("load", "/DET/sv", csv.toString(), "--url", src)).isZero();
        assertThat(run("sync", "--from", src, "--to", snap.toString())).as(err.toString()).isZero();
        assertThat(run("sync", "--from", src, "--to", dir.resolve("missing.db").toString())).isEqualTo(2);
        assertThat(err.toString()).contains("export one first");

        try (IovStore s = IovStore.open(DatabaseConfig.of("jdbc:sqlite:" + snap))) {
            Node sv = s.folder("/DET/sv");
            assertThat(s.count(sv, 0, 100, ChannelSelection.all(), null)).isEqualTo(2);
            assertThat(s.count(s.folder("/DET/mv"), 0, 60, ChannelSelection.all(), "GT")).isEqualTo(2);
            assertThat(s.snapshotCoverage().globalTag()).isEqualTo("GT");
            // coverage per key type: the run-lumi folder only over its run range, the time folder over its times
            Node mv = s.folder("/DET/mv");
            assertThatThrownBy(() -> s.count(mv, 0, 100, ChannelSelection.all(), "GT"))
                    .hasMessageContaining("covers keys [0, 60] of '/DET/mv' only");
        }
    }

    /** The loader, export and sync with MariaDB on either side: load into it, export from it, sync from it, export to it. */
    @Test
    void loaderExportAndSyncWorkWithMariaDb() throws Exception {
        String maria = MariaDbServer.shared().createDatabase("cli_src");
        assertThat(run("create-folder", "/DET/sv", "--versioning", "SV", "--keys", "time", "--payload", "i:Int32",
                "--parents", "--url", maria, "--user", "root")).as(err.toString()).isZero();
        Path csv = dir.resolve("sv.csv");
        Files.writeString(csv, "channel,since,until,i\n0,10,20,1\n0,200,300,2\n");
        assertThat(run("load", "/DET/sv", csv.toString(), "--url", maria, "--user", "root")).as(err.toString()).isZero();

        Path snap = dir.resolve("from-maria.db");
        assertThat(run("export", "--url", maria, "--user", "root", "--global-tag", "HEAD", "--from", "0", "--to", "raw:100",
                "--out", snap.toString())).as(err.toString()).isZero();
        Files.writeString(csv, "channel,since,until,i\n0,20,30,3\n");
        assertThat(run("load", "/DET/sv", csv.toString(), "--url", maria, "--user", "root")).as(err.toString()).isZero();
        assertThat(run("sync", "--from", maria, "--user", "root", "--to", snap.toString())).as(err.toString()).isZero();
        try (IovStore s = IovStore.open(DatabaseConfig.of("jdbc:sqlite:" + snap))) {
            assertThat(s.count(s.folder("/DET/sv"), 0, 100, ChannelSelection.all(), null)).isEqualTo(2);
        }

        String target = MariaDbServer.shared().createDatabase("cli_out");
        assertThat(run("export", "--url", "jdbc:sqlite:" + snap, "--global-tag", "HEAD", "--from", "0", "--to", "raw:100",
                "--out", target, "--out-user", "root")).as(err.toString()).isZero();
        try (IovStore s = IovStore.open(DatabaseConfig.of(target, "root", ""))) {
            assertThat(s.count(s.folder("/DET/sv"), 0, 100, ChannelSelection.all(), null)).isEqualTo(2);
            assertThat(s.snapshotCoverage().globalTag()).isEqualTo("HEAD");
        }
    }
}
