package io.outpost.server.pin;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.server.cache.Catalog;
import io.outpost.server.query.Op;
import io.outpost.server.query.Query;
import io.outpost.server.support.RunningService;
import io.outpost.store.IovStore;
import io.outpost.store.StoreException;
import io.outpost.store.globaltag.GlobalTags;
import io.outpost.store.model.ChannelSelection;
import io.outpost.store.model.KeyType;
import io.outpost.store.model.NewIov;
import io.outpost.store.model.Node;
import io.outpost.store.model.PayloadSpec;
import io.outpost.store.model.TagLock;
import io.outpost.store.model.ValidityKey;
import io.outpost.store.model.Versioning;
import io.outpost.testkit.MariaDbServer;
import io.outpost.testkit.PostgresServer;
import io.outpost.testkit.TempDirs;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A locked global tag over real HTTP, on SQLite, PostgreSQL and MariaDB: after random writes of every kind, every
 * read through it — resolve, state, snapshots in both formats, the pinned snapshot, the pinned folder URLs the
 * snapshot names, and native reads with the global tag — answers the same bytes as right after the lock.
 */
class FrozenGlobalTagServingTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String GT = "GT-SERVED";
    private static final PayloadSpec SPEC = PayloadSpec.parse("v:Int32");
    /** Keys inside the single-version folder's closed IOVs ([0, 100), [100, 300)) and beyond. */
    private static final long[] KEYS = {50, 150, 250};
    private static final String[] MV_FOLDERS = {"/DET/A", "/DET/B", "/DET/E"};

    enum Backend { SQLITE, POSTGRESQL, MARIADB }

    private static RunningService start(Backend b) {
        String[] common = {"--outpost.demo-data=false", "--outpost.poll-interval=1h",
            // every folder's answer goes by its pinned URL, so the snapshot names them all
            "--outpost.snapshot.inline-max-bytes=1B"};
        return switch (b) {
            case SQLITE -> RunningService.start("jdbc:sqlite:" + TempDirs.create("outpost-frozen").resolve("f.db"),
                    common);
            case POSTGRESQL -> RunningService.start(PostgresServer.shared().createDatabase("frozen_served"),
                    concat(common, "--outpost.database.user=postgres"));
            case MARIADB -> RunningService.start(MariaDbServer.shared().createDatabase("frozen_served"),
                    concat(common, "--outpost.database.user=root"));
        };
    }

    private static String[] concat(String[] a, String b) {
        String[] out = java.util.Arrays.copyOf(a, a.length + 1);
        out[a.length] = b;
        return out;
    }

    private static Node mv(IovStore store, String path, int value) {
        Node f = store.createFolder(path, Versioning.MULTI_VERSION, KeyType.TIME, SPEC, "", true);
        store.store(f, List.of(new NewIov(0, 0, 100, value), new NewIov(0, 100, ValidityKey.MAX, value + 1),
                new NewIov(1, 50, ValidityKey.MAX, value + 2)));
        return f;
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void randomWritesAfterTheLockLeaveEveryAnswerThroughItByteIdentical(Backend backend) throws Exception {
        long seed = Long.getLong("outpost.freeze.seed", System.nanoTime());
        Random rnd = new Random(seed);
        try (RunningService svc = start(backend)) {
            IovStore store = svc.bean(IovStore.class);
            Node a = mv(store, "/DET/A", 10);
            mv(store, "/DET/B", 20);
            store.createFolder("/DET/E", Versioning.MULTI_VERSION, KeyType.TIME, SPEC, "", true);
            Node s = store.createFolder("/SV/S", Versioning.SINGLE_VERSION, KeyType.TIME, SPEC, "", true);
            store.store(s, List.of(new NewIov(0, 0, 100, 1), new NewIov(0, 100, 300, 2),
                    new NewIov(0, 300, ValidityKey.MAX, 3)));
            store.tagCurrentHead(a, "A-1", "");
            Map<String, String> choices = new LinkedHashMap<>();
            choices.put("/DET/A", "A-1");
            new GlobalTags(store).create(GT, "", choices);
            store.setTagLock(GT, TagLock.LOCKED);
            svc.bean(Catalog.class).refresh();

            Map<String, byte[]> before = readsThrough(svc);
            assertThat(before).hasSizeGreaterThan(20);
            JsonNode whole = json(svc.get("/v1/json/snapshot/" + GT + "/150"));
            assertThat(reads(whole)).containsEntry("/SV/S", "single-version HEAD").containsEntry("/DET/A", "tag")
                    .containsEntry("/DET/B", "tag");
            // a single-version folder read with the global tag (as `find --tag GT` does) reads what the snapshot
            // reads, and its answer says it is the HEAD
            JsonNode sv = json(svc.get(at("/SV/S", 150)));
            assertThat(sv.get("tag").asString()).isEqualTo("HEAD");
            assertThat(sv.get("rows").get(0).get(3).asInt()).isEqualTo(2);

            List<String> done = new ArrayList<>();
            for (int step = 0; step < 12; step++) {
                done.add(randomWrite(store, rnd, step));
                svc.bean(Catalog.class).refresh();
                Map<String, byte[]> after = readsThrough(svc);
                assertThat(after.keySet()).isEqualTo(before.keySet());
                for (Map.Entry<String, byte[]> e : before.entrySet()) {
                    assertThat(new String(after.get(e.getKey()), StandardCharsets.ISO_8859_1))
                            .as("%s (seed %d, after %s)", e.getKey(), seed, done)
                            .isEqualTo(new String(e.getValue(), StandardCharsets.ISO_8859_1));
                }
            }
            // a folder created after the lock is refused when asked for through the global tag
            // (the first write always creates /NEW/F0)
            HttpResponse<byte[]> later = svc.get(at("/NEW/F0", 50));
            assertThat(later.statusCode()).isEqualTo(404);
            assertThat(new String(later.body(), StandardCharsets.UTF_8)).contains("not part of the global tag");
            HttpResponse<byte[]> laterSnapshot = svc.get("/v1/json/snapshot/" + GT + "/50/NEW");
            assertThat(laterSnapshot.statusCode()).isEqualTo(404);
            assertThat(new String(laterSnapshot.body(), StandardCharsets.UTF_8)).contains("not part of the global tag");
        }
    }

    private static String randomWrite(IovStore store, Random rnd, int step) {
        Node folder = store.folder(MV_FOLDERS[rnd.nextInt(MV_FOLDERS.length)]);
        long since = rnd.nextInt(400);
        int kind = step == 0 ? 0 : rnd.nextInt(6);
        switch (kind) {
            case 0 -> {
                mv(store, "/NEW/F" + step, step);
                return "new folder /NEW/F" + step;
            }
            case 1 -> store.store(folder, List.of(new NewIov(rnd.nextInt(3), since, ValidityKey.MAX, step)));
            case 2 -> {
                try {
                    store.store(store.folder("/SV/S"), List.of(new NewIov(0, 300 + since, ValidityKey.MAX, step)));
                } catch (StoreException refused) {
                    return "sv insert refused";
                }
            }
            case 3 -> store.createChannel(folder, 10 + step, "ch" + step, "");
            case 4 -> {
                try {
                    store.tagCurrentHead(folder, "NEW-" + step, "");
                } catch (StoreException nothingToTag) {
                    return "tag refused";
                }
            }
            default -> {
                try {
                    store.deleteTag(folder, store.resolveTag(folder, GT).name());
                    throw new AssertionError("a tag of the locked global tag was deleted");
                } catch (StoreException refused) {
                    assertThat(refused.kind()).isEqualTo(StoreException.Kind.TAG_LOCKED);
                    return "tag move refused";
                }
            }
        }
        return "write " + kind + " at " + since + " in " + folder.path();
    }

    private static String at(String folder, long t) {
        return new Query(Query.Format.JSON, Op.AT, GT, t, t, ChannelSelection.all(), folder).canonicalPath();
    }

    /** Every answer through the global tag, by URL. */
    private static Map<String, byte[]> readsThrough(RunningService svc) throws Exception {
        Map<String, byte[]> out = new LinkedHashMap<>();
        // the whole global tag's resolution: the single-version folder's generation is its HEAD's, by design
        String resolved = new String(svc.get("/v1/json/resolve/" + GT).body(), StandardCharsets.UTF_8)
                .replaceAll("(\\[\"/SV/S\",\"HEAD\",\"\",\"SV\",\"time\",)\"[0-9.]+\"", "$1\"its HEAD's\"");
        assertThat(resolved).contains("\"its HEAD's\"");
        out.put("/v1/json/resolve/" + GT, resolved.getBytes(StandardCharsets.UTF_8));
        List<String> urls = new ArrayList<>(List.of("/v1/json/state/" + GT + "/DET", "/v1/bin/state/" + GT + "/DET"));
        for (long k : KEYS) {
            urls.add("/v1/json/snapshot/" + GT + "/" + k + "/DET");
            urls.add("/v1/bin/snapshot/" + GT + "/" + k + "/DET");
            for (String f : MV_FOLDERS) {
                urls.add(at(f, k));
            }
            urls.add(at("/SV/S", k)); // inside the single-version folder's closed IOVs
        }
        for (String url : urls) {
            HttpResponse<byte[]> r = svc.get(url);
            assertThat(r.statusCode()).as(url + ": " + new String(r.body(), StandardCharsets.UTF_8)).isEqualTo(200);
            out.put(url, r.body());
            if (url.startsWith("/v1/json/snapshot/")) {
                String pinned = r.headers().firstValue("X-Outpost-Snapshot").orElseThrow();
                out.put(pinned, svc.get(pinned).body());
                for (JsonNode row : json(r).get("rows")) {
                    String folderUrl = row.get(4).asString();
                    HttpResponse<byte[]> f = svc.get(folderUrl);
                    assertThat(f.statusCode()).as(folderUrl).isEqualTo(200);
                    out.put(folderUrl, f.body());
                }
            }
        }
        return out;
    }

    private static JsonNode json(HttpResponse<byte[]> r) {
        return JSON.readTree(new String(r.body(), StandardCharsets.UTF_8));
    }

    /** folder → the snapshot's "reads" column. */
    private static Map<String, String> reads(JsonNode snapshot) {
        Map<String, String> out = new LinkedHashMap<>();
        for (JsonNode row : snapshot.get("rows")) {
            out.put(row.get(0).asString(), row.get(9).asString());
        }
        return out;
    }
}
