package io.outpost.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.outpost.store.IovStore;
import io.outpost.store.globaltag.GlobalTags;
import io.outpost.store.model.KeyType;
import io.outpost.store.model.NewIov;
import io.outpost.store.model.Node;
import io.outpost.store.model.PayloadSpec;
import io.outpost.store.model.ValidityKey;
import io.outpost.store.model.Versioning;
import io.outpost.testkit.SquidProcess;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Snapshot jobs through a real Squid while the conditions change: new jobs see a write within the state lifetime
 * plus the poll interval; a job pinned to the old state keeps a consistent old view of every folder; a pinned URL
 * never carries another generation's rows; "generation gone" answers live a couple of seconds at most.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SnapshotThroughSquidTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final Duration STATE_MAX_AGE = Duration.ofSeconds(2);
    private static final Duration POLL = Duration.ofSeconds(1);
    private static final Duration GONE_MAX_AGE = Duration.ofSeconds(1);
    private static final String GT = "SN-GT-1";
    private static final long T = 500;

    private Path db;
    private OutpostServer outpost;
    private SquidProcess squid;
    private HttpClient client;

    /** What one job read: its state, and each folder's generation and rows. */
    private record Job(String state, Map<String, String> generations, Map<String, JsonNode> rows, int requests) {
    }

    @BeforeAll
    void start() {
        Assumptions.assumeTrue(SquidProcess.installed(), SquidProcess.NOT_INSTALLED);
        db = TestData.freshDatabase("snapshot");
        try (IovStore store = TestData.open(db)) {
            Node small = store.createFolder("/SN/Small", Versioning.SINGLE_VERSION, KeyType.TIME,
                    PayloadSpec.parse("v:Int32"), "", true);
            store.store(small, List.of(new NewIov(0, 0, ValidityKey.MAX, 1)));
            Node large = store.createFolder("/SN/Large", Versioning.SINGLE_VERSION, KeyType.TIME,
                    PayloadSpec.parse("v:Int32,s:String255"), "", true);
            List<NewIov> rows = new ArrayList<>();
            for (int ch = 0; ch < 50; ch++) {
                rows.add(new NewIov(ch, 0, ValidityKey.MAX, 1, "large-channel-" + ch + "-generation-1"));
            }
            store.store(large, rows);
            Node tagged = store.createFolder("/SN/Sub/Tagged", Versioning.MULTI_VERSION, KeyType.TIME,
                    PayloadSpec.parse("v:Int32"), "", true);
            store.store(tagged, List.of(new NewIov(0, 0, ValidityKey.MAX, 7)));
            store.tagCurrentHead(tagged, "TAGGED-1", "");
            new GlobalTags(store).create(GT, "", Map.of("/SN/Sub/Tagged", "TAGGED-1"));
        }
        // OutpostServer polls every second (POLL)
        outpost = OutpostServer.start(db, 0,
                "--outpost.snapshot.state-max-age=" + STATE_MAX_AGE.toSeconds() + "s",
                "--outpost.snapshot.gone-max-age=" + GONE_MAX_AGE.toSeconds() + "s",
                "--outpost.snapshot.inline-max-bytes=1KB");
        squid = Layout.startSquid("snapshot", "--outpost", outpost.baseUrl());
        client = squid.client();
    }

    @AfterAll
    void stop() {
        if (squid != null) {
            squid.close();
        }
        if (outpost != null) {
            outpost.close();
        }
    }

    private HttpResponse<String> get(String path) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create(outpost.baseUrl() + path)).timeout(Duration.ofSeconds(30))
                .build(), HttpResponse.BodyHandlers.ofString());
    }

    private static JsonNode json(HttpResponse<String> r) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return JSON.readTree(r.body());
    }

    /** A snapshot job: the state, the pinned snapshot, then every folder given by URL. */
    private Job job(String pinnedState) throws Exception {
        int requests = 0;
        String state = pinnedState;
        if (state == null) {
            HttpResponse<String> s = get("/v1/json/state/" + GT);
            requests++;
            state = s.headers().firstValue("X-Outpost-State").orElseThrow();
        }
        HttpResponse<String> snap = get("/v1/json/pin/" + state + "/snapshot/" + GT + "/" + T);
        requests++;
        if (snap.statusCode() == 301) {
            snap = get(snap.headers().firstValue("Location").orElseThrow());
            requests++;
        }
        Map<String, String> generations = new LinkedHashMap<>();
        Map<String, JsonNode> rows = new LinkedHashMap<>();
        for (JsonNode row : json(snap).get("rows")) {
            String folder = row.get(0).asString();
            generations.put(folder, row.get(2).asString());
            if (row.get(4).isNull()) {
                rows.put(folder, row.get(5).get("rows")); // inline: the folder's answer as a nested object
            } else {
                HttpResponse<String> part = get(row.get(4).asString());
                requests++;
                assertThat(part.headers().firstValue("Cache-Control")).hasValue("public, max-age=31536000, immutable");
                rows.put(folder, json(part).get("rows"));
            }
        }
        return new Job(state, generations, rows, requests);
    }

    @Test
    void jobsShareImmutableAnswersSeeWritesInTimeAndOldJobsKeepTheirView() throws Exception {
        Job first = job(null);
        assertThat(first.rows()).containsOnlyKeys("/SN/Large", "/SN/Small", "/SN/Sub/Tagged");
        assertThat(first.rows().get("/SN/Sub/Tagged").get(0).get(3).asInt()).isEqualTo(7);
        // requests per job: state + snapshot (+ redirect to the canonical key) + the one large folder
        assertThat(first.requests()).isLessThanOrEqualTo(4);
        Job second = job(null);
        assertThat(second.rows()).isEqualTo(first.rows());
        String largeUrl = largeUrl(first.state());
        assertThat(outpost.requests().count(largeUrl)).as("the large folder reached Outpost once").isEqualTo(1);

        // a write to two folders, by another process
        long written;
        try (IovStore store = TestData.open(db)) {
            List<NewIov> rows = new ArrayList<>();
            for (int ch = 0; ch < 50; ch++) {
                rows.add(new NewIov(ch, 400, ValidityKey.MAX, 2, "large-channel-" + ch + "-generation-2"));
            }
            store.store(store.folder("/SN/Large"), rows);
            store.store(store.folder("/SN/Small"), List.of(new NewIov(0, 400, ValidityKey.MAX, 2)));
            written = System.nanoTime();
        }
        // new jobs see the write (both folders at once) within the state lifetime plus the poll interval
        AtomicReference<Job> later = new AtomicReference<>();
        await().atMost(STATE_MAX_AGE.plus(POLL).plusSeconds(3)).pollInterval(Duration.ofMillis(100)).until(() -> {
            Job j = job(null);
            int small = j.rows().get("/SN/Small").get(0).get(3).asInt();
            int large = j.rows().get("/SN/Large").get(0).get(3).asInt();
            assertThat(small).as("a job never sees one folder after the write and the other before").isEqualTo(large);
            later.set(j);
            return small == 2;
        });
        Duration staleness = Duration.ofNanos(System.nanoTime() - written);
        // Squid counts ages in whole seconds: allow one more second than the bound
        assertThat(staleness).isLessThan(STATE_MAX_AGE.plus(POLL).plusSeconds(1));
        System.out.printf("write -> first job that saw it: %d ms (state max-age %d s, poll %d s)%n",
                staleness.toMillis(), STATE_MAX_AGE.toSeconds(), POLL.toSeconds());
        assertThat(later.get().rows().get("/SN/Sub/Tagged")).isEqualTo(first.rows().get("/SN/Sub/Tagged"));
        assertThat(later.get().generations().get("/SN/Sub/Tagged")).isEqualTo(first.generations().get("/SN/Sub/Tagged"));

        // the job pinned to the old state still reads the old view of every folder (from Squid)
        Job old = job(first.state());
        assertThat(old.rows()).isEqualTo(first.rows());
        assertThat(old.generations()).isEqualTo(first.generations());
        assertThat(outpost.requests().count(largeUrl)).as("old pinned answers come from the cache").isEqualTo(1);

        // a pinned URL of the old generation that was never fetched cannot be reproduced: a short-lived 410
        String oldGen = first.generations().get("/SN/Large");
        String newGen = later.get().generations().get("/SN/Large");
        String never = "/v1/json/pin/" + oldGen + "/at/HEAD/450/all/SN/Large";
        HttpResponse<String> gone = get(never);
        long goneAt = System.nanoTime();
        assertThat(gone.statusCode()).isEqualTo(410);
        assertThat(JSON.readTree(gone.body()).get("currentGeneration").asString()).isEqualTo(newGen);
        await().atMost(GONE_MAX_AGE.plusSeconds(4)).pollInterval(Duration.ofMillis(100))
                .until(() -> get(never).statusCode() == 410 && outpost.requests().count(never, 410) >= 2);
        assertThat(Duration.ofNanos(System.nanoTime() - goneAt)).as("410 kept by Squid")
                .isLessThan(GONE_MAX_AGE.plusSeconds(3));
        // the same read at the new generation has the new rows; the old generation's URL never does
        assertThat(json(get("/v1/json/pin/" + newGen + "/at/HEAD/450/all/SN/Large")).get("rows").get(0).get(3).asInt())
                .isEqualTo(2);
        for (RequestLog.Entry e : outpost.requests().all()) {
            if (e.uri().startsWith("/v1/json/pin/" + oldGen + "/") && e.status() == 200) {
                assertThat(json(get(e.uri())).get("rows").get(0).get(3).asInt()).as(e.uri()).isEqualTo(1);
            }
        }
    }

    private String largeUrl(String state) throws Exception {
        HttpResponse<String> snap = get("/v1/json/pin/" + state + "/snapshot/" + GT + "/0");
        for (JsonNode row : json(snap).get("rows")) {
            if (row.get(0).asString().equals("/SN/Large")) {
                return row.get(4).asString();
            }
        }
        throw new AssertionError("no /SN/Large in the snapshot");
    }
}
