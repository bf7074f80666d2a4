package io.outpost.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.server.support.RunningService;
import io.outpost.store.IovStore;
import io.outpost.store.db.DatabaseConfig;
import io.outpost.store.demo.DemoData;
import io.outpost.store.export.SnapshotExporter;
import io.outpost.store.model.ValidityKey;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The service started on an offline snapshot of the demo database (its global tag, which holds time and run-lumi
 * folders, over a time range and a run range): inside the ranges it answers byte for byte like the service on the
 * source, snapshots at a time and a run-lumi key included; outside them, or for a layer it does not hold, it
 * answers 404 with a problem saying so.
 */
class SnapshotServingTest {
    private static final String GT = DemoData.GLOBAL_TAG;
    private static final long FROM = DemoData.T0;
    private static final long TO = DemoData.T0 + 10 * DemoData.HOUR;
    private static final long RUN_FROM = ValidityKey.fromRunLumi(300, 0);
    private static final long RUN_TO = ValidityKey.fromRunLumi(303, 0);

    @TempDir
    static Path dir;
    private static RunningService source;
    private static RunningService snapshot;

    @BeforeAll
    static void start() {
        String sourceUrl = "jdbc:sqlite:" + dir.resolve("source.db");
        String snapshotUrl = "jdbc:sqlite:" + dir.resolve("snapshot.db");
        try (IovStore src = IovStore.open(DatabaseConfig.of(sourceUrl));
             IovStore out = IovStore.open(DatabaseConfig.of(snapshotUrl))) {
            DemoData.load(src);
            new SnapshotExporter(src, out).export(SnapshotExporter.Request.perKeyType(GT,
                    new SnapshotExporter.Range(FROM, TO), new SnapshotExporter.Range(RUN_FROM, RUN_TO), "/DEMO/**"),
                    SnapshotExporter.Progress.NONE);
        }
        source = RunningService.start(sourceUrl, "--outpost.demo-data=false");
        snapshot = RunningService.start(snapshotUrl, "--outpost.demo-data=false");
    }

    @AfterAll
    static void stop() {
        if (snapshot != null) {
            snapshot.close();
        }
        if (source != null) {
            source.close();
        }
    }

    @Test
    void readsInsideTheRangeAnswerLikeTheSource() throws Exception {
        long t = DemoData.T0 + 3 * DemoData.HOUR + 17;
        long run = ValidityKey.fromRunLumi(301, 5);
        List<String> queries = List.of(
                "/v1/json/at/HEAD/" + t + "/all/DEMO/Calo/Pedestals",
                "/v1/bin/browse/HEAD/" + DemoData.T0 + "/" + TO + "/1-3/cs/DEMO/DCS/HV",
                "/v1/json/count/HEAD/" + FROM + "/" + TO + "/all/DEMO/Calo/Pedestals",
                "/v1/json/at/" + GT + "/" + run + "/2/DEMO/Calo/Gains",
                "/v1/json/at/GAINS-v2/" + run + "/all/DEMO/Calo/Gains",
                "/v1/json/count/" + GT + "/" + RUN_FROM + "/" + RUN_TO + "/all/DEMO/Calo/Gains",
                "/v1/json/browse/HEAD/" + RUN_FROM + "/" + RUN_TO + "/all/cs/DEMO/Align/Global",
                "/v1/json/channels/DEMO/DCS/HV",
                "/v1/json/tag/" + GT + "/DEMO/Calo/Gains",
                "/v1/json/snapshot/" + GT + "/" + t + "," + run,
                "/v1/bin/snapshot/" + GT + "/" + TO + "," + RUN_FROM);
        for (String q : queries) {
            HttpResponse<byte[]> expected = source.get(q);
            HttpResponse<byte[]> actual = snapshot.get(q);
            assertThat(expected.statusCode()).as(q).isEqualTo(200);
            assertThat(actual.statusCode()).as(q).isEqualTo(200);
            assertThat(actual.body()).as(q).isEqualTo(expected.body());
        }
    }

    @Test
    void readsOutsideTheRangeSayTheSnapshotDoesNotCoverThem() throws Exception {
        HttpResponse<byte[]> r = snapshot.get("/v1/json/at/HEAD/" + (TO + DemoData.HOUR) + "/all/DEMO/Calo/Pedestals");
        assertThat(r.statusCode()).isEqualTo(404);
        assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(v -> assertThat(v).contains("problem+json"));
        assertThat(new String(r.body(), StandardCharsets.UTF_8))
                .contains("covers keys [" + FROM + ", " + TO + "] of '/DEMO/Calo/Pedestals' only");
        // The source has rows there: the snapshot's 404 is not the source's answer.
        assertThat(source.get("/v1/json/at/HEAD/" + (TO + DemoData.HOUR) + "/all/DEMO/Calo/Pedestals").statusCode())
                .isEqualTo(200);
        // a run-lumi folder is held over the run range only, whatever the time range
        HttpResponse<byte[]> lateRun = snapshot.get("/v1/json/at/HEAD/" + (RUN_TO + 1) + "/all/DEMO/Align/Global");
        assertThat(lateRun.statusCode()).isEqualTo(404);
        assertThat(new String(lateRun.body(), StandardCharsets.UTF_8))
                .contains("covers keys [" + RUN_FROM + ", " + RUN_TO + "] of '/DEMO/Align/Global' only");
        HttpResponse<byte[]> lateSnapshot = snapshot.get("/v1/json/snapshot/" + GT + "/" + FROM + "," + (RUN_TO + 1));
        assertThat(lateSnapshot.statusCode()).isEqualTo(404);
        HttpResponse<byte[]> head = snapshot.get("/v1/json/count/HEAD/" + RUN_FROM + "/" + RUN_TO + "/all/DEMO/Calo/Gains");
        assertThat(head.statusCode()).isEqualTo(404);
        assertThat(new String(head.body(), StandardCharsets.UTF_8)).contains("not its HEAD");
        HttpResponse<byte[]> otherTag = snapshot.get("/v1/json/count/GAINS-v1/" + RUN_FROM + "/" + RUN_TO
                + "/all/DEMO/Calo/Gains");
        assertThat(otherTag.statusCode()).isEqualTo(404);
    }

    @Test
    void frontierQueriesInsideTheRangeAnswerLikeTheSourceAndOutsideItAreRefused() throws Exception {
        String iovs = snapshot.bean(io.outpost.store.IovStore.class).folder("/DEMO/Calo/Pedestals").iovTable();
        long t = DemoData.T0 + 3 * DemoData.HOUR + 17;
        String inside = frontier(snapshot, iovs, t);
        assertThat(inside).contains("error=\"0\"").doesNotContain("records=\"0\"");
        assertThat(inside).isEqualTo(frontier(source, iovs, t));
        long after = TO + DemoData.HOUR;
        assertThat(frontier(source, iovs, after)).contains("error=\"0\"");
        assertThat(frontier(snapshot, iovs, after)).contains("error=\"1\"")
                .contains("Not covered by this offline snapshot: this snapshot covers keys [" + FROM + ", " + TO
                        + "] of &apos;/DEMO/Calo/Pedestals&apos; only");
        // a run-lumi folder: its run range, not the time range, bounds what the snapshot answers
        String align = snapshot.bean(io.outpost.store.IovStore.class).folder("/DEMO/Align/Global").iovTable();
        long run = ValidityKey.fromRunLumi(302, 7);
        String runInside = frontier(snapshot, align, run);
        assertThat(runInside).contains("error=\"0\"").doesNotContain("records=\"0\"")
                .isEqualTo(frontier(source, align, run));
        assertThat(frontier(snapshot, align, RUN_TO + 1)).contains("error=\"1\"")
                .contains("covers keys [" + RUN_FROM + ", " + RUN_TO + "] of &apos;/DEMO/Align/Global&apos; only");
    }

    /** COOL's at-time read of every channel at t through the service's Frontier endpoint: the raw response. */
    private static String frontier(RunningService svc, String iovs, long t) throws Exception {
        String sql = "SELECT CHANNEL_ID, IOV_SINCE, IOV_UNTIL FROM " + iovs + " WHERE IOV_SINCE <= " + t
                + " AND IOV_UNTIL > " + t + " ORDER BY CHANNEL_ID";
        HttpResponse<byte[]> r = svc.get("/Outpost/Frontier/type=frontier_request:1:DEFAULT&encoding=BLOB&p1="
                + io.outpost.frontier.protocol.P1Codec.encode(sql), "X-Frontier-Id", "outpost-test 1.0");
        assertThat(r.statusCode()).isEqualTo(200);
        return new String(r.body(), StandardCharsets.ISO_8859_1);
    }
}
