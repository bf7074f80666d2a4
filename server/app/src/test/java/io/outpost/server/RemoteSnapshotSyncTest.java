package io.outpost.server;

import static io.outpost.store.export.SnapshotTestSupport.GT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outpost.server.cache.Catalog;
import io.outpost.server.support.RunningService;
import io.outpost.store.IovStore;
import io.outpost.store.StoreException;
import io.outpost.store.cli.LoaderCli;
import io.outpost.store.db.Database;
import io.outpost.store.db.DatabaseConfig;
import io.outpost.store.export.CoverageRow;
import io.outpost.store.export.RemoteSnapshots;
import io.outpost.store.export.SnapshotCoverage;
import io.outpost.store.export.SnapshotExporter;
import io.outpost.store.export.SnapshotSync;
import io.outpost.store.export.SnapshotTestSupport;
import io.outpost.store.model.ChannelSelection;
import io.outpost.store.model.NewIov;
import io.outpost.store.model.Node;
import io.outpost.store.model.TagLock;
import io.outpost.testkit.TempDirs;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/**
 * Export and sync of an offline snapshot from a running service over HTTP only ({@code /export/v1/…}): the result
 * equals a fresh JDBC export of the service's database, an unchanged folder is not copied again, and a folder
 * held in a locked tag never has its IOVs copied again.
 */
class RemoteSnapshotSyncTest {

    private static DatabaseConfig sqlite(Path dir, String name) {
        return DatabaseConfig.of("jdbc:sqlite:" + dir.resolve(name + ".db"));
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {31, 32})
    void syncOverHttpEqualsAFreshExport(long seed) throws Exception {
        Random rnd = new Random(seed);
        int[] counter = new int[2];
        Path dir = TempDirs.create("remote-sync");
        try (RunningService svc = startSource(dir)) {
            IovStore source = randomHistory(svc, rnd, 30, counter);
            long k1 = rnd.nextInt(40);
            long k2 = k1 + 20 + rnd.nextInt(60);
            SnapshotExporter.Request request = new SnapshotExporter.Request(GT, k1, k2, "/A/**");
            String url = svc.url("");
            DatabaseConfig synced = sqlite(dir, "synced");
            try (Database snap = SnapshotTestSupport.openMigrated(synced)) {
                SnapshotExporter.Result r = new RemoteSnapshots(url, snap).export(request, SnapshotExporter.Progress.NONE);
                assertThat(r.folders()).isEqualTo(4);
            }
            DatabaseConfig first = sqlite(dir, "first");
            export(source, first, request);
            assertSameRows(synced, first);

            // Nothing changed: every folder answers 304, nothing is copied.
            try (Database snap = SnapshotTestSupport.openMigrated(synced)) {
                SnapshotSync.Result r = new RemoteSnapshots(url, snap).sync(SnapshotExporter.Progress.NONE);
                assertThat(r.copied()).isZero();
                assertThat(r.unchanged()).isEqualTo(4);
            }

            SnapshotTestSupport.randomWrites(source, rnd, 30, counter);
            // the global tag now also reaches mv3 (copied as its HEAD so far), and a new folder appears
            SnapshotTestSupport.tagMv3AndAddAFolder(source, k1);
            // written in-process, past the service's write path: its folder list notices at once only when told
            svc.bean(Catalog.class).refresh();
            try (Database snap = SnapshotTestSupport.openMigrated(synced)) {
                SnapshotSync.Result r = new RemoteSnapshots(url, snap).sync(SnapshotExporter.Progress.NONE);
                assertThat(r.copied()).isGreaterThanOrEqualTo(2);
            }
            try (IovStore snap = IovStore.open(synced)) {
                assertThat(snap.resolveTag(snap.folder("/A/B/mv3"), GT).name()).isEqualTo("MV3-NOW");
                assertThat(snap.count(snap.folder("/A/added"), k1, k2, ChannelSelection.all(), null)).isEqualTo(1);
            }
            DatabaseConfig fresh = sqlite(dir, "fresh");
            export(source, fresh, request);
            assertSameRows(synced, fresh);
        } finally {
            TempDirs.deleteQuietly(dir);
        }
    }

    @Test
    void aLockedTagIsNeverCopiedTwiceAndBadRequestsGet4xx() throws Exception {
        Random rnd = new Random(33);
        int[] counter = new int[2];
        Path dir = TempDirs.create("remote-sync-locked");
        try (RunningService svc = startSource(dir)) {
            IovStore source = randomHistory(svc, rnd, 20, counter);
            source.setTagLock(source.resolveTag(source.folder("/A/B/mv1"), GT).name(), TagLock.LOCKED);
            DatabaseConfig config = sqlite(dir, "snap");
            try (Database snap = SnapshotTestSupport.openMigrated(config)) {
                new RemoteSnapshots(svc.url(""), snap).export(new SnapshotExporter.Request(GT, 0, 200, "/A/B/mv1"),
                        SnapshotExporter.Progress.NONE);
            }
            String recorded = coverage(config).get(0).sourceGeneration();
            // HEAD writes and a new channel change the folder's generation, not its locked tag.
            source.store(source.folder("/A/B/mv1"), List.of(new NewIov(5, 1, 2, 1, "x", 1.0, true)));
            AtomicLong copiedRows = new AtomicLong();
            try (Database snap = SnapshotTestSupport.openMigrated(config)) {
                SnapshotSync.Result r = new RemoteSnapshots(svc.url(""), snap).sync(new SnapshotExporter.Progress() {
                    @Override
                    public void folder(Node folder, int index, int total) {
                    }

                    @Override
                    public void iovs(long count) {
                        copiedRows.addAndGet(count);
                    }
                });
                assertThat(r.copied()).isZero();
                assertThat(r.unchanged()).isEqualTo(1);
            }
            assertThat(copiedRows).hasValue(0);
            assertThat(coverage(config).get(0).sourceGeneration()).isEqualTo(recorded);
            try (IovStore snap = IovStore.open(config)) {
                // the channel list was refreshed all the same
                assertThat(snap.channels(snap.folder("/A/B/mv1"))).isEqualTo(source.channels(source.folder("/A/B/mv1")));
            }

            HttpResponse<byte[]> missing = svc.get("/export/v1/folder/" + GT + "/0/10/A/nothing");
            assertThat(missing.statusCode()).isEqualTo(404);
            assertThat(new String(missing.body(), StandardCharsets.UTF_8)).contains("nothing");
            assertThat(svc.get("/export/v1/folder/" + GT + "/10/0/A/B/mv1").statusCode()).isEqualTo(400);
            assertThat(svc.get("/export/v1/everything/" + GT + "/0/10/A/B/mv1").statusCode()).isEqualTo(400);
            assertThat(svc.get("/export/v1/folder/NO-SUCH-GT/0/10/A/B/mv1").statusCode()).isEqualTo(404);
            try (Database other = SnapshotTestSupport.openMigrated(sqlite(dir, "other"))) {
                assertThatThrownBy(() -> new RemoteSnapshots(svc.url(""), other).sync(SnapshotExporter.Progress.NONE))
                        .isInstanceOf(StoreException.class).hasMessageContaining("not a snapshot");
            }
        } finally {
            TempDirs.deleteQuietly(dir);
        }
    }

    @Test
    void theLoaderExportsAndSyncsOverHttp() throws Exception {
        Random rnd = new Random(34);
        int[] counter = new int[2];
        Path dir = TempDirs.create("remote-sync-cli");
        try (RunningService svc = startSource(dir)) {
            IovStore source = randomHistory(svc, rnd, 20, counter);
            svc.bean(Catalog.class).refresh();
            Path out = dir.resolve("snapshot.db");
            // /A holds run-lumi and time folders: one --from/--to is refused, a range per key type is not
            Run oneRange = loader("export", "--server", svc.url(""), "--global-tag", GT, "--from", "raw:3", "--to", "raw:70",
                    "--folders", "/A/**", "--out", out.toString());
            assertThat(oneRange.exit()).isEqualTo(2);
            assertThat(oneRange.err()).contains("--run-from/--run-to");
            assertThat(out).doesNotExist();
            assertThat(loader("export", "--server", svc.url(""), "--global-tag", GT, "--time-from", "3", "--time-to",
                    "70", "--run-from", "raw:3", "--run-to", "raw:70", "--folders", "/A/**", "--out", out.toString()).exit())
                    .isZero();
            SnapshotTestSupport.randomWrites(source, rnd, 20, counter);
            assertThat(loader("sync", "--from", svc.url(""), "--to", out.toString()).exit()).isZero();
            DatabaseConfig fresh = sqlite(dir, "fresh");
            export(source, fresh, new SnapshotExporter.Request(GT, 3, 70, "/A/**"));
            assertSameRows(DatabaseConfig.of("jdbc:sqlite:" + out), fresh);
            Run unreachable = loader("sync", "--from", "http://127.0.0.1:1", "--to", out.toString());
            assertThat(unreachable.exit()).isNotZero();
            assertThat(unreachable.err()).contains("cannot reach http://127.0.0.1:1");
        } finally {
            TempDirs.deleteQuietly(dir);
        }
    }

    @Test
    void aSiteCanTurnTheExportEndpointOff() throws Exception {
        Path dir = TempDirs.create("remote-sync-off");
        try (RunningService svc = RunningService.start("jdbc:sqlite:" + dir.resolve("source.db"),
                "--outpost.export.max-concurrent=0")) {
            HttpResponse<byte[]> off = svc.get("/export/v1/folder/HEAD/0/10/DEMO/Calo/Pedestals");
            assertThat(off.statusCode()).isEqualTo(404);
            assertThat(off.headers().firstValue("Cache-Control")).hasValue("no-store");
            assertThat(new String(off.body(), StandardCharsets.UTF_8)).contains("turned off");
            // reads are not affected
            assertThat(svc.get("/v1/json/nodes").statusCode()).isEqualTo(200);
        } finally {
            TempDirs.deleteQuietly(dir);
        }
    }

    /** A service without demo data on a SQLite source database in {@code dir}. */
    private static RunningService startSource(Path dir) {
        return RunningService.start("jdbc:sqlite:" + dir.resolve("source.db"), "--outpost.demo-data=false");
    }

    /** The service's store with the test tree, {@code writes} random writes and the global tag. */
    private static IovStore randomHistory(RunningService svc, Random rnd, int writes, int[] counter) {
        IovStore source = svc.bean(IovStore.class);
        SnapshotTestSupport.createTree(source);
        SnapshotTestSupport.randomWrites(source, rnd, writes, counter);
        SnapshotTestSupport.createGlobalTag(source, rnd, counter);
        return source;
    }

    private record Run(int exit, String err) {
    }

    private static Run loader(String... args) {
        CommandLine cl = LoaderCli.configure(new CommandLine(new LoaderCli()));
        StringWriter err = new StringWriter();
        cl.setErr(new PrintWriter(err));
        return new Run(cl.execute(args), err.toString());
    }

    private static List<CoverageRow> coverage(DatabaseConfig config) throws Exception {
        try (Database db = Database.open(config); Connection c = db.readPool().getConnection()) {
            return SnapshotCoverage.rows(c, db.prefix());
        }
    }

    private static void export(IovStore source, DatabaseConfig to, SnapshotExporter.Request request) {
        try (IovStore target = IovStore.open(to)) {
            new SnapshotExporter(source, target).export(request, SnapshotExporter.Progress.NONE);
        }
    }

    private static void assertSameRows(DatabaseConfig a, DatabaseConfig b) throws Exception {
        try (Database da = SnapshotTestSupport.openMigrated(a); Database db = SnapshotTestSupport.openMigrated(b)) {
            List<String> rows = SnapshotTestSupport.dump(da);
            assertThat(rows).hasSizeGreaterThan(50);
            assertThat(rows).isEqualTo(SnapshotTestSupport.dump(db));
        }
    }
}
