package io.outpost.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.server.support.RunningService;
import io.outpost.store.IovStore;
import io.outpost.store.db.Database;
import io.outpost.store.db.DatabaseConfig;
import io.outpost.store.demo.DemoData;
import io.outpost.store.export.SnapshotExporter;
import io.outpost.store.export.SnapshotSync;
import io.outpost.store.export.SnapshotTestSupport;
import io.outpost.store.model.KeyType;
import io.outpost.store.model.NewIov;
import io.outpost.store.model.Node;
import io.outpost.store.model.ValidityKey;
import io.outpost.store.model.Versioning;
import io.outpost.testkit.TempDirs;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A service serving an offline snapshot follows a sync of that snapshot without a restart: a folder the sync adds
 * is answered through the native API and the Frontier endpoint once the service's catalog poll has seen it.
 */
class SnapshotServingFollowsSyncTest {
    private static final long FROM = DemoData.T0;
    private static final long TO = DemoData.T0 + 10 * DemoData.HOUR;
    private static final String ADDED = "/DEMO/Added";

    @Test
    void aFolderAddedBySyncIsServedWithoutARestart() throws Exception {
        Path dir = TempDirs.create("snapshot-follows-sync");
        try {
            DatabaseConfig source = DatabaseConfig.of("jdbc:sqlite:" + dir.resolve("source.db"));
            DatabaseConfig snapshot = DatabaseConfig.of("jdbc:sqlite:" + dir.resolve("snapshot.db"));
            try (IovStore src = IovStore.open(source); IovStore out = IovStore.open(snapshot)) {
                DemoData.load(src);
                // a time range and a run range: the folder added later (time keys) is synced over the time range
                new SnapshotExporter(src, out).export(SnapshotExporter.Request.perKeyType("DEMO-2026",
                        new SnapshotExporter.Range(FROM, TO), new SnapshotExporter.Range(ValidityKey.fromRunLumi(300, 0),
                        ValidityKey.fromRunLumi(310, 0)), "/DEMO/**"), SnapshotExporter.Progress.NONE);
            }
            long t = DemoData.T0 + DemoData.HOUR;
            String nativeCount = "/v1/json/count/HEAD/" + FROM + "/" + TO + "/all" + ADDED;
            try (RunningService svc = RunningService.start(snapshot.jdbcUrl(), "--outpost.demo-data=false",
                    "--outpost.poll-interval=200ms")) {
                String sql;
                try (IovStore src = IovStore.open(source)) {
                    Node added = src.createFolder(ADDED, Versioning.SINGLE_VERSION, KeyType.TIME,
                            SnapshotTestSupport.SPEC, "added after the export", false);
                    src.store(added, List.of(new NewIov(2, t, t + 5, 9, "new", 0.5, true),
                            new NewIov(3, t - 5, t + 10, 10, "newer", 0.25, false)));
                    sql = "SELECT CHANNEL_ID, IOV_SINCE, IOV_UNTIL FROM " + added.iovTable() + " WHERE IOV_SINCE <= "
                            + t + " AND IOV_UNTIL > " + t + " ORDER BY CHANNEL_ID";
                    // before the sync the snapshot says it does not hold the folder, on both endpoints
                    assertThat(svc.get(nativeCount).statusCode()).as("not in the snapshot yet").isEqualTo(404);
                    assertThat(frontier(svc, sql)).contains("error=\"1\"");
                    try (Database snap = SnapshotTestSupport.openMigrated(snapshot)) {
                        SnapshotSync.Result r = new SnapshotSync(src, snap).sync(SnapshotExporter.Progress.NONE);
                        assertThat(r.copied()).as("the added folder").isEqualTo(1);
                    }
                }

                // the catalog poll notices the new folder and the service re-reads the snapshot's coverage
                awaitStatus(svc, nativeCount, 200, 10);
                String counted = new String(svc.get(nativeCount).body(), StandardCharsets.UTF_8);
                assertThat(counted).contains("\"rows\":[[2]]");
                String frontier = awaitFrontier(svc, sql, 10);
                assertThat(frontier).contains("records=\"2\"");
                // the range still bounds what the snapshot answers for the new folder
                long after = TO + DemoData.HOUR;
                assertThat(svc.get("/v1/json/count/HEAD/" + FROM + "/" + after + "/all" + ADDED).statusCode())
                        .isEqualTo(404);
            }
        } finally {
            TempDirs.deleteQuietly(dir);
        }
    }

    private static void awaitStatus(RunningService svc, String path, int status, int seconds) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        int last;
        while ((last = svc.get(path).statusCode()) != status) {
            assertThat(System.nanoTime()).as("%s answered %d within %d s (last %d)", path, status, seconds, last)
                    .isLessThan(deadline);
            Thread.sleep(100);
        }
    }

    /** Polls the Frontier endpoint until it answers {@code sql} without a payload error; returns that answer. */
    private static String awaitFrontier(RunningService svc, String sql, int seconds) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (true) {
            String body = frontier(svc, sql);
            if (body.contains("<quality error=\"0\"")) {
                return body;
            }
            assertThat(System.nanoTime()).as("Frontier answers the added folder within %d s: %s", seconds, body)
                    .isLessThan(deadline);
            Thread.sleep(100);
        }
    }

    /** The raw Frontier answer to {@code sql}, which always comes with 200 (errors are payload errors). */
    private static String frontier(RunningService svc, String sql) throws Exception {
        HttpResponse<byte[]> r = svc.get("/Outpost/Frontier/type=frontier_request:1:DEFAULT&encoding=BLOB&p1="
                + io.outpost.frontier.protocol.P1Codec.encode(sql), "X-Frontier-Id", "outpost-test 1.0");
        assertThat(r.statusCode()).isEqualTo(200);
        return new String(r.body(), StandardCharsets.ISO_8859_1);
    }
}
