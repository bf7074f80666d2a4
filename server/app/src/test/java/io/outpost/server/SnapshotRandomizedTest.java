package io.outpost.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.server.cache.Catalog;
import io.outpost.server.support.RunningService;
import io.outpost.store.IovStore;
import io.outpost.store.globaltag.GlobalTags;
import io.outpost.store.model.ChannelSelection;
import io.outpost.store.model.Iov;
import io.outpost.store.model.KeyType;
import io.outpost.store.model.NewIov;
import io.outpost.store.model.Node;
import io.outpost.store.model.PayloadSpec;
import io.outpost.store.model.ValidityKey;
import io.outpost.store.model.Versioning;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * For random histories (single- and multi-version folders with time and run-lumi keys, HEAD writes, tags, user
 * tags, new global tags each round) and random pairs of a time and a run-lumi key: every folder of a snapshot
 * holds exactly the rows of the per-folder at-time answer, at the key of its own key type, at the generation the
 * snapshot names, and exactly what the store finds at that key; the validity of each key type holds its key.
 */
class SnapshotRandomizedTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final long SEED = Long.getLong("outpost.test.seed", 20261123L);
    /** Run-lumi folders' keys start at run 300 (so a time read as a run-lumi key, or the reverse, finds nothing). */
    private static final long RUN0 = ValidityKey.fromRunLumi(300, 0);
    private static RunningService svc;
    private static int inline;
    private static int byUrl;

    @BeforeAll
    static void start() throws Exception {
        // Small inline limit: both inline and by-URL folders are compared.
        svc = RunningService.startSqliteDemo("--outpost.snapshot.inline-max-bytes=300B");
    }

    @AfterAll
    static void stop() {
        svc.close();
    }

    private static JsonNode json(HttpResponse<byte[]> r) {
        assertThat(r.statusCode()).as(new String(r.body(), StandardCharsets.UTF_8)).isEqualTo(200);
        return JSON.readTree(new String(r.body(), StandardCharsets.UTF_8));
    }

    @Test
    void snapshotsEqualPerFolderAtTimeAnswersOfTheSameGenerations() throws Exception {
        Random rnd = new Random(SEED);
        IovStore store = svc.bean(IovStore.class);
        Catalog catalog = svc.bean(Catalog.class);
        GlobalTags gts = new GlobalTags(store);
        List<Node> folders = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            Versioning v = i % 2 == 0 ? Versioning.MULTI_VERSION : Versioning.SINGLE_VERSION;
            KeyType k = i < 3 ? KeyType.TIME : KeyType.RUN_LUMI;
            folders.add(store.createFolder("/RND/S" + (i % 3) + "/F" + i, v, k, PayloadSpec.parse("v:Int32"), "", true));
        }
        int checkedFolders = 0;
        int value = 0;
        for (int round = 0; round < 6; round++) {
            for (Node f : folders) {
                int writes = rnd.nextInt(4);
                for (int w = 0; w < writes; w++) {
                    List<NewIov> rows = new ArrayList<>();
                    long base = f.keyType() == KeyType.RUN_LUMI ? RUN0 : 0;
                    long since = base + rnd.nextInt(1000);
                    long until = rnd.nextInt(5) == 0 ? ValidityKey.MAX : since + 1 + rnd.nextInt(300);
                    for (int ch = 0; ch < 3; ch++) {
                        if (rnd.nextInt(4) != 0) {
                            NewIov row = new NewIov(ch, since, until, value++);
                            rows.add(f.isMultiVersion() && rnd.nextInt(5) == 0 ? row.withUserTag("U-" + f.name(), false) : row);
                        }
                    }
                    try {
                        store.store(f, rows);
                    } catch (io.outpost.store.StoreException overlap) {
                        // single-version folders refuse overlaps with closed IOVs: that history just did not happen
                    }
                }
            }
            Map<String, String> choices = new LinkedHashMap<>();
            for (Node f : folders) {
                if (f.isMultiVersion() && rnd.nextBoolean()) {
                    String tag = "R" + round + "-" + f.name();
                    store.tagCurrentHead(f, tag, "");
                    choices.put(f.path(), tag);
                }
            }
            String gt = "RGT-" + round;
            if (!choices.isEmpty()) {
                gts.create(gt, "", choices);
            }
            catalog.refresh();
            for (String tag : choices.isEmpty() ? List.of("HEAD") : List.of("HEAD", gt)) {
                for (int k = 0; k < 5; k++) {
                    long t = rnd.nextInt(5) == 0 ? ValidityKey.MAX - 1 : rnd.nextInt(1400);
                    long rl = rnd.nextInt(5) == 0 ? ValidityKey.MAX - 1 : RUN0 + rnd.nextInt(1400);
                    checkedFolders += checkSnapshot(store, tag, t, rl);
                }
                // one key cannot serve both key types
                assertThat(svc.get("/v1/json/snapshot/" + tag + "/5/RND").statusCode()).isEqualTo(400);
            }
        }
        assertThat(checkedFolders).isGreaterThan(100);
        assertThat(inline).as("folders carried inline").isPositive();
        assertThat(byUrl).as("folders carried as pinned URLs").isPositive();
    }

    /** Compares one snapshot with the per-folder answers; returns the number of folders compared. */
    private static int checkSnapshot(IovStore store, String tag, long t, long rl) throws Exception {
        HttpResponse<byte[]> r = svc.get("/v1/json/snapshot/" + tag + "/" + t + "," + rl + "/RND");
        JsonNode snap = json(r);
        String pinned = r.headers().firstValue("X-Outpost-Snapshot").orElseThrow();
        String[] since = r.headers().firstValue("X-Outpost-Valid-Since").orElseThrow().split(",");
        String[] until = r.headers().firstValue("X-Outpost-Valid-Until").orElseThrow().split(",");
        assertThat(Long.parseLong(since[0])).isLessThanOrEqualTo(t);
        assertThat(t).isLessThan(Long.parseLong(until[0]));
        assertThat(Long.parseLong(since[1])).isLessThanOrEqualTo(rl);
        assertThat(rl).isLessThan(Long.parseLong(until[1]));
        assertThat(pinned).endsWith("/snapshot/" + tag + "/" + since[0] + "," + since[1] + "/RND");
        int n = 0;
        for (JsonNode row : snap.get("rows")) {
            String folder = row.get(0).asString();
            String folderTag = row.get(1).asString();
            String generation = row.get(2).asString();
            long key = row.get(6).asString().equals("run-lumi") ? rl : t;
            assertThat(store.folder(folder).keyType().label()).isEqualTo(row.get(6).asString());
            assertThat(row.get(7).asLong()).as(folder).isLessThanOrEqualTo(key);
            assertThat(key).as(folder).isLessThan(row.get(8).asLong());
            if (row.get(4).isNull()) {
                inline++;
            } else {
                byUrl++;
            }
            JsonNode part = row.get(4).isNull() ? row.get(5) : json(svc.get(row.get(4).asString()));
            // the per-folder at-time answer pinned to the same generation, at the key itself
            JsonNode direct = json(svc.get("/v1/json/pin/" + generation + "/at/" + folderTag + "/" + key + "/all"
                    + folder));
            assertThat(part.get("rows")).as(folder + " at " + key + " in " + tag).isEqualTo(direct.get("rows"));
            List<Iov> found = store.findObjects(store.folder(folder), key, ChannelSelection.all(), folderTag);
            assertThat(part.get("rows")).as(folder + " rows in the store").hasSize(found.size());
            for (int i = 0; i < found.size(); i++) {
                JsonNode got = part.get("rows").get(i);
                assertThat(got.get(0).asLong()).isEqualTo(found.get(i).channelId());
                assertThat(got.get(1).asLong()).isEqualTo(found.get(i).since());
                assertThat(got.get(2).asLong()).isEqualTo(found.get(i).until());
                assertThat(got.get(3).asInt()).isEqualTo(found.get(i).payload()[0]);
            }
            n++;
        }
        assertThat(n).isEqualTo(6);
        return n;
    }
}
