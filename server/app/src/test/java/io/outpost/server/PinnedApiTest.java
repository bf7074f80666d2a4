package io.outpost.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.server.cache.Catalog;
import io.outpost.server.support.RunningService;
import io.outpost.server.support.WireDecoder;
import io.outpost.store.IovStore;
import io.outpost.store.demo.DemoData;
import io.outpost.store.model.NewIov;
import io.outpost.store.model.ValidityKey;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** Global tags, states, pinned reads and snapshots over real HTTP on the SQLite demo database. */
class PinnedApiTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String GT = DemoData.GLOBAL_TAG;
    private static final long T = DemoData.T0 + 3 * DemoData.HOUR + 17;
    /** A run-lumi key: run 302, lumi 150 (inside the demo gains' hot-cell IOV of channel 2). */
    private static final long RL = ValidityKey.fromRunLumi(DemoData.FIRST_RUN + 2, 150);
    private static final String IMMUTABLE = "public, max-age=31536000, immutable";
    private static RunningService svc;

    @BeforeAll
    static void start() throws Exception {
        // Folders over 1 KB go by URL, so the demo has inline and by-URL folders.
        svc = RunningService.startSqliteDemo("--outpost.snapshot.inline-max-bytes=1KB");
    }

    @AfterAll
    static void stop() {
        svc.close();
    }

    private static JsonNode json(HttpResponse<byte[]> r) {
        return JSON.readTree(new String(r.body(), StandardCharsets.UTF_8));
    }

    private static String header(HttpResponse<byte[]> r, String name) {
        return r.headers().firstValue(name).orElse(null);
    }

    /** folder → generation token, from the state answer. */
    private static String generation(JsonNode state, String folder) {
        for (JsonNode row : state.get("rows")) {
            if (row.get(0).asString().equals(folder)) {
                return row.get(2).asString();
            }
        }
        throw new AssertionError("no " + folder + " in the state");
    }

    @Test
    void listsAndResolvesTheDemoGlobalTag() throws Exception {
        JsonNode list = json(svc.get("/v1/json/globaltags"));
        assertThat(list.get("kind").asString()).isEqualTo("globaltags");
        assertThat(list.get("rows").get(0).get(0).asString()).isEqualTo(GT);

        HttpResponse<byte[]> r = svc.get("/v1/json/resolve/" + GT);
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(header(r, "Cache-Control")).isEqualTo("public, max-age=10");
        JsonNode body = json(r);
        List<String> folders = new ArrayList<>();
        for (JsonNode row : body.get("rows")) {
            folders.add(row.get(0).asString() + "=" + row.get(1).asString());
        }
        assertThat(folders).contains("/DEMO/Calo/Gains=GAINS-v2", "/DEMO/Calo/Pedestals=HEAD", "/DEMO/DCS/HV=HEAD");
        assertThat(body.get("columns").toString()).contains("versioning", "keyType", "generation");
        WireDecoder.Table bin = WireDecoder.decode(svc.get("/v1/bin/resolve/" + GT).body());
        assertThat(bin.rows()).hasSize(body.get("rowCount").asInt());
    }

    @Test
    void stateIsShortLivedAndNamesItsHash() throws Exception {
        HttpResponse<byte[]> r = svc.get("/v1/json/state/" + GT);
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(header(r, "Cache-Control")).isEqualTo("public, max-age=10");
        assertThat(header(r, "X-Outpost-State")).matches("[0-9a-f]{16}");
        assertThat(json(r).get("kind").asString()).isEqualTo("state");
        HttpResponse<byte[]> head = svc.get("/v1/json/state/HEAD/DEMO/Calo");
        assertThat(json(head).get("rows")).hasSize(2);
        assertThat(generation(json(head), "/DEMO/Calo/Pedestals")).matches("[0-9]+\\.[0-9]+");
        assertThat(svc.get("/v1/json/state/HEAD/NO/SUCH").statusCode()).isEqualTo(404);
        assertThat(svc.get("/v1/json/state/GAINS-v2").statusCode()).as("not a global tag").isEqualTo(400);
        assertThat(svc.get("/v1/json/state/NO-SUCH-GT").statusCode()).isEqualTo(404);
        assertThat(svc.get("/v1/json/resolve/HEAD").statusCode()).isEqualTo(400);
    }

    @Test
    void pinnedReadsAreImmutableAndAnOldGenerationIsGoneUnlessKept() throws Exception {
        IovStore store = svc.bean(IovStore.class);
        var f = store.createFolder("/PIN/A", io.outpost.store.model.Versioning.SINGLE_VERSION,
                io.outpost.store.model.KeyType.TIME, io.outpost.store.model.PayloadSpec.parse("v:Int32"), "", true);
        store.store(f, List.of(new NewIov(0, 0, ValidityKey.MAX, 1)));
        svc.bean(Catalog.class).refresh();
        String g1 = generation(json(svc.get("/v1/json/state/HEAD/PIN")), "/PIN/A");

        HttpResponse<byte[]> r = svc.get("/v1/json/pin/" + g1 + "/at/HEAD/5/all/PIN/A");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(header(r, "Cache-Control")).isEqualTo(IMMUTABLE);
        assertThat(json(r).get("rows").get(0).get(3).asInt()).isEqualTo(1);
        HttpResponse<byte[]> redirect = svc.get("/v1/json/pin/" + g1 + "/at/HEAD/05/all/PIN/A");
        assertThat(redirect.statusCode()).isEqualTo(301);
        assertThat(header(redirect, "Location")).isEqualTo("/v1/json/pin/" + g1 + "/at/HEAD/5/all/PIN/A");
        assertThat(header(redirect, "Cache-Control")).isEqualTo(IMMUTABLE);

        store.store(f, List.of(new NewIov(0, 10, ValidityKey.MAX, 2)));
        svc.bean(Catalog.class).refresh();
        String g2 = generation(json(svc.get("/v1/json/state/HEAD/PIN")), "/PIN/A");
        assertThat(g2).isNotEqualTo(g1);
        // the answer computed at g1 is still that generation's answer
        HttpResponse<byte[]> kept = svc.get("/v1/json/pin/" + g1 + "/at/HEAD/5/all/PIN/A");
        assertThat(kept.statusCode()).isEqualTo(200);
        assertThat(json(kept).get("rows").get(0).get(3).asInt()).isEqualTo(1);
        // a read at g1 that was never computed cannot be reproduced: a short-lived 410 naming the current generation
        HttpResponse<byte[]> gone = svc.get("/v1/json/pin/" + g1 + "/at/HEAD/20/all/PIN/A");
        assertThat(gone.statusCode()).isEqualTo(410);
        assertThat(header(gone, "Content-Type")).startsWith("application/problem+json");
        assertThat(header(gone, "Cache-Control")).isEqualTo("public, max-age=2");
        assertThat(json(gone).get("currentGeneration").asString()).isEqualTo(g2);
        assertThat(header(gone, "X-Outpost-Generation")).isEqualTo(g2);
        HttpResponse<byte[]> now = svc.get("/v1/json/pin/" + g2 + "/at/HEAD/20/all/PIN/A");
        assertThat(json(now).get("rows").get(0).get(3).asInt()).isEqualTo(2);
        // a generation newer than any seen: refreshed, still unknown, so a 404 cached for a second
        HttpResponse<byte[]> future = svc.get("/v1/json/pin/99999999999999999.1/at/HEAD/20/all/PIN/A");
        assertThat(future.statusCode()).isEqualTo(404);
        assertThat(header(future, "Cache-Control")).isEqualTo("public, max-age=1");
        assertThat(json(future).get("currentGeneration").asString()).isEqualTo(g2);
    }

    @Test
    void aWriteTheCatalogHasNotSeenIsNeverServedUnderAnOlderGeneration() throws Exception {
        IovStore store = svc.bean(IovStore.class);
        var f = store.createFolder("/PIN/B", io.outpost.store.model.Versioning.SINGLE_VERSION,
                io.outpost.store.model.KeyType.TIME, io.outpost.store.model.PayloadSpec.parse("v:Int32"), "", true);
        store.store(f, List.of(new NewIov(0, 0, ValidityKey.MAX, 1)));
        svc.bean(Catalog.class).refresh();
        String g1 = generation(json(svc.get("/v1/json/state/HEAD/PIN/B")), "/PIN/B");
        store.store(f, List.of(new NewIov(0, 10, ValidityKey.MAX, 2))); // the catalog does not know yet
        HttpResponse<byte[]> r = svc.get("/v1/json/pin/" + g1 + "/at/HEAD/50/all/PIN/B");
        assertThat(r.statusCode()).isEqualTo(410);
        String g2 = json(r).get("currentGeneration").asString();
        assertThat(g2).isNotEqualTo(g1);
        assertThat(json(svc.get("/v1/json/pin/" + g2 + "/at/HEAD/50/all/PIN/B")).get("rows").get(0).get(3).asInt())
                .isEqualTo(2);
    }

    @Test
    void snapshotInlinesSmallFoldersPinsLargeOnesAndCanonicalisesTheKeys() throws Exception {
        // The demo global tag holds time and run-lumi folders: a time and a run-lumi key, each for its own folders.
        String keys = T + "," + RL;
        HttpResponse<byte[]> cur = svc.get("/v1/json/snapshot/" + GT + "/" + keys);
        assertThat(cur.statusCode()).isEqualTo(200);
        assertThat(header(cur, "Cache-Control")).isEqualTo("public, max-age=10");
        String state = header(cur, "X-Outpost-State");
        String pinnedPath = header(cur, "X-Outpost-Snapshot");
        long t0 = DemoData.T0 + 3 * DemoData.HOUR;
        JsonNode snap = json(cur);
        assertThat(snap.get("kind").asString()).isEqualTo("snapshot");
        assertThat(snap.get("validSince").asLong()).as("no one interval for two key types").isZero();
        assertThat(snap.get("validUntil").asLong()).isZero();
        int inline = 0;
        int byUrl = 0;
        long rlSince = 0;
        long rlUntil = Long.MAX_VALUE;
        java.util.Set<String> keyTypes = new java.util.HashSet<>();
        for (JsonNode row : snap.get("rows")) {
            String folder = row.get(0).asString();
            String tag = row.get(1).asString();
            String keyType = row.get(6).asString();
            keyTypes.add(keyType);
            long key = keyType.equals("run-lumi") ? RL : T;
            HttpResponse<byte[]> directAnswer = svc.get("/v1/json/at/" + tag + "/" + key + "/all" + folder);
            JsonNode direct = json(directAnswer);
            assertThat(row.get(7).asLong()).as(folder).isEqualTo(direct.get("validSince").asLong());
            assertThat(row.get(8).asLong()).as(folder).isEqualTo(direct.get("validUntil").asLong());
            if (keyType.equals("run-lumi")) {
                rlSince = Math.max(rlSince, row.get(7).asLong());
                rlUntil = Math.min(rlUntil, row.get(8).asLong());
            }
            JsonNode part;
            if (row.get(4).isNull()) {
                inline++;
                part = row.get(5);
                assertThat(part.isObject()).as("an inline answer is a nested object, not a string").isTrue();
            } else {
                byUrl++;
                String url = row.get(4).asString();
                assertThat(url).startsWith("/v1/json/pin/" + row.get(2).asString() + "/at/" + tag + "/");
                HttpResponse<byte[]> fetched = svc.get(url);
                assertThat(header(fetched, "Cache-Control")).isEqualTo(IMMUTABLE);
                part = json(fetched);
            }
            assertThat(part.get("rows")).as(folder).isEqualTo(direct.get("rows"));
        }
        assertThat(keyTypes).containsExactlyInAnyOrder("time", "run-lumi");
        assertThat(inline).isPositive();
        assertThat(byUrl).isPositive();
        assertThat(rlSince).isLessThanOrEqualTo(RL);
        assertThat(pinnedPath).isEqualTo("/v1/json/pin/" + state + "/snapshot/" + GT + "/" + t0 + "," + rlSince);
        assertThat(header(cur, "X-Outpost-Valid-Since")).isEqualTo(t0 + "," + rlSince);
        assertThat(header(cur, "X-Outpost-Valid-Until")).isEqualTo((t0 + DemoData.HOUR / 2) + "," + rlUntil);

        // any pair of keys in the common intervals leads to the one pinned snapshot URL
        HttpResponse<byte[]> other = svc.get("/v1/json/pin/" + state + "/snapshot/" + GT + "/" + (t0 + 99) + ","
                + (rlUntil - 1));
        assertThat(other.statusCode()).isEqualTo(301);
        assertThat(header(other, "Location")).isEqualTo(pinnedPath);
        assertThat(header(other, "Cache-Control")).isEqualTo(IMMUTABLE);
        HttpResponse<byte[]> pinned = svc.get(pinnedPath);
        assertThat(pinned.statusCode()).isEqualTo(200);
        assertThat(header(pinned, "Cache-Control")).isEqualTo(IMMUTABLE);
        assertThat(pinned.body()).isEqualTo(cur.body());
        WireDecoder.Table bin = WireDecoder.decode(svc.get("/v1/bin/snapshot/" + GT + "/" + keys).body());
        assertThat(bin.rows()).hasSize(snap.get("rowCount").asInt());
        assertThat(bin.kind()).isEqualTo(10);

        HttpResponse<byte[]> wrongState = svc.get("/v1/json/pin/0123456789abcdef/snapshot/" + GT + "/" + t0);
        assertThat(wrongState.statusCode()).isEqualTo(410);
        assertThat(json(wrongState).get("currentState").asString()).isEqualTo(state);
        assertThat(header(wrongState, "Cache-Control")).isEqualTo("public, max-age=2");
    }

    @Test
    void oneKeyForBothKeyTypesIsRefusedAndAPairForOneKeyTypeKeepsTheOneKeyUrl() throws Exception {
        HttpResponse<byte[]> one = svc.get("/v1/json/snapshot/" + GT + "/" + T);
        assertThat(one.statusCode()).isEqualTo(400);
        assertThat(header(one, "Content-Type")).startsWith("application/problem+json");
        assertThat(json(one).get("detail").asString()).contains("{time},{runlumi}");

        // a percent-encoded comma is redirected to the one spelling caches key on
        HttpResponse<byte[]> encoded = svc.get("/v1/json/snapshot/" + GT + "/" + T + "%2C" + RL);
        assertThat(encoded.statusCode()).isEqualTo(301);
        assertThat(header(encoded, "Location")).isEqualTo("/v1/json/snapshot/" + GT + "/" + T + "," + RL);

        // a subtree of time folders only: one key as before, and a pair uses its time
        String sub = "/DEMO/Calo/Pedestals";
        HttpResponse<byte[]> byTime = svc.get("/v1/json/snapshot/" + GT + "/" + T + sub);
        assertThat(byTime.statusCode()).isEqualTo(200);
        HttpResponse<byte[]> byPair = svc.get("/v1/json/snapshot/" + GT + "/" + T + "," + RL + sub);
        assertThat(byPair.statusCode()).isEqualTo(200);
        assertThat(byPair.body()).isEqualTo(byTime.body());
        String pinnedPath = header(byTime, "X-Outpost-Snapshot");
        assertThat(header(byPair, "X-Outpost-Snapshot")).isEqualTo(pinnedPath).doesNotContain(",");
        String state = header(byTime, "X-Outpost-State");
        HttpResponse<byte[]> pinnedPair = svc.get("/v1/json/pin/" + state + "/snapshot/" + GT + "/" + T + "," + RL
                + sub);
        assertThat(pinnedPair.statusCode()).isEqualTo(301);
        assertThat(header(pinnedPair, "Location")).isEqualTo(pinnedPath);
        assertThat(json(byTime).get("validSince").asLong()).isPositive();

        // and a run-lumi subtree reads at the run-lumi key
        JsonNode align = json(svc.get("/v1/json/snapshot/" + GT + "/" + T + "," + RL + "/DEMO/Align"));
        assertThat(align.get("validSince").asLong()).isEqualTo(ValidityKey.fromRunLumi(DemoData.FIRST_RUN + 2, 0));
    }

    @Test
    void badInputGetsAClearShortLivedProblem() throws Exception {
        for (String bad : List.of("/v1/json/pin/12/at/HEAD/5/all/DEMO/Calo/Pedestals",
                "/v1/json/pin/012.3/at/HEAD/5/all/DEMO/Calo/Pedestals", "/v1/json/pin/1.1/tags/DEMO",
                "/v1/json/snapshot/" + GT + "/99999999999999999999", "/v1/json/snapshot/" + GT,
                "/v1/json/pin/XYZ/snapshot/" + GT + "/5", "/v1/json/snapshot/" + GT + "/5,6,7",
                "/v1/json/snapshot/" + GT + "/5,", "/v1/json/snapshot/" + GT + "/,5", "/v1/json/state/b%21d", "/v1/json/globaltags/x")) {
            HttpResponse<byte[]> r = svc.get(bad);
            assertThat(r.statusCode()).as(bad).isEqualTo(400);
            assertThat(header(r, "Content-Type")).as(bad).startsWith("application/problem+json");
            assertThat(header(r, "Cache-Control")).as(bad).isEqualTo("public, max-age=5");
            assertThat(json(r).get("detail").asString()).as(bad).isNotBlank();
        }
    }
}
