package io.outpost.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.store.db.Database;
import io.outpost.store.model.ChannelSelection;
import io.outpost.store.model.Iov;
import io.outpost.store.model.KeyType;
import io.outpost.store.model.NewIov;
import io.outpost.store.model.Node;
import io.outpost.store.model.PayloadSpec;
import io.outpost.store.model.TagLock;
import io.outpost.store.model.ValidityKey;
import io.outpost.store.model.Versioning;
import io.outpost.store.schema.SchemaManager;
import io.outpost.store.testing.Backends;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Random single- and multi-version histories written through the store, every read compared with a brute-force
 * model kept by the test: overlapping stores, back-insertions, user tags (also locked and partially locked),
 * standard tags of the HEAD now and as of a past date, and a hierarchical tag resolved through a folderset.
 */
class RandomizedSemanticsTest {
    private static final long MAXK = ValidityKey.MAX;
    private static final int CHANNELS = 4;

    static Stream<Arguments> cases() {
        List<Arguments> out = new ArrayList<>();
        for (Backends b : Backends.values()) {
            for (long seed : new long[] {1, 2, 3}) {
                out.add(Arguments.of(b, seed));
            }
        }
        return out.stream();
    }

    /** A clock that moves one second per reading, so every write has its own insertion time. */
    static final class TickingClock extends Clock {
        private Instant now = Instant.parse("2026-03-01T00:00:00Z");

        @Override
        public synchronized Instant instant() {
            now = now.plusSeconds(1);
            return now;
        }

        synchronized Instant peek() {
            return now;
        }

        @Override
        public java.time.ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }
    }

    record Row(long channel, long since, long until, int value) {
    }

    // ------------------------------------------------------------------ single version

    @ParameterizedTest(name = "{0} seed {1}")
    @MethodSource("cases")
    void singleVersionMatchesModel(Backends backend, long seed) {
        Random rnd = new Random(seed);
        try (IovStore store = backend.freshStore("rand_sv")) {
            Node f = store.createFolder("/R/sv", Versioning.SINGLE_VERSION, KeyType.TIME, PayloadSpec.parse("v:Int32"), "", true);
            Map<Long, List<Row>> model = new HashMap<>();
            int value = 0;
            for (int step = 0; step < 60; step++) {
                int n = 1 + rnd.nextInt(3);
                List<NewIov> batch = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    long ch = rnd.nextInt(CHANNELS);
                    long s = rnd.nextInt(60);
                    long u = rnd.nextInt(4) == 0 ? MAXK : s + 1 + rnd.nextInt(10);
                    batch.add(new NewIov(ch, s, u, value++));
                }
                Map<Long, List<Row>> next = applySv(model, batch);
                boolean stored;
                try {
                    store.store(f, batch);
                    stored = true;
                } catch (StoreException e) {
                    assertThat(e.kind()).isEqualTo(StoreException.Kind.OVERLAP);
                    stored = false;
                }
                assertThat(stored).as("step %d batch %s accepted by store vs model", step, batch).isEqualTo(next != null);
                if (next != null) {
                    model = next;
                }
                compareReads(store, f, model, null, rnd);
            }
        }
    }

    /** The model of single-version storage; null when the batch must be rejected. */
    static Map<Long, List<Row>> applySv(Map<Long, List<Row>> model, List<NewIov> batch) {
        Map<Long, List<Row>> m = copy(model);
        Map<Long, Integer> perChannel = new HashMap<>();
        for (NewIov o : batch) {
            perChannel.merge(o.channelId(), 1, Integer::sum);
        }
        for (NewIov o : batch) {
            List<Row> rows = m.computeIfAbsent(o.channelId(), k -> new ArrayList<>());
            Row last = rows.stream().max((a, b) -> Long.compare(a.since, b.since)).orElse(null);
            long s = o.since();
            long u = o.until();
            if (last != null && last.until == MAXK && last.since < s) {
                rows.remove(last);
                rows.add(new Row(last.channel, last.since, s, last.value));
            } else if (last != null && s < last.until) {
                if (perChannel.get(o.channelId()) > 1) {
                    return null;
                }
                for (Row r : rows) {
                    if (r.since < u && r.until > s) {
                        return null;
                    }
                }
            }
            rows.add(new Row(o.channelId(), s, u, (Integer) o.payload()[0]));
        }
        return m;
    }

    // ------------------------------------------------------------------ multi version

    @ParameterizedTest(name = "{0} seed {1}")
    @MethodSource("cases")
    void multiVersionMatchesModel(Backends backend, long seed) {
        Random rnd = new Random(seed);
        TickingClock clock = new TickingClock();
        Database db = Database.open(backend.freshConfig("rand_mv"));
        new SchemaManager(db).migrate();
        try (IovStore store = new IovStore(db, clock)) {
            Node f = store.createFolder("/R/set/mv", Versioning.MULTI_VERSION, KeyType.RUN_LUMI, PayloadSpec.parse("v:Int32"),
                    "", true);
            // layer name ("" = HEAD) -> channel -> visible rows
            Map<String, Map<Long, List<Row>>> layers = new HashMap<>();
            layers.put("", new HashMap<>());
            Map<String, TagLock> locks = new HashMap<>();
            Map<String, Map<Long, List<Row>>> snapshots = new HashMap<>();
            TreeMap<Instant, Map<Long, List<Row>>> headHistory = new TreeMap<>();
            headHistory.put(clock.peek(), copy(layers.get("")));
            String[] userTags = {"U1", "U2"};
            int value = 0;
            int tagCount = 0;
            for (int step = 0; step < 50; step++) {
                int op = rnd.nextInt(10);
                if (op < 7) {
                    int n = 1 + rnd.nextInt(4);
                    List<NewIov> batch = new ArrayList<>();
                    String tag = rnd.nextInt(3) == 0 ? userTags[rnd.nextInt(2)] : null;
                    boolean only = tag != null && rnd.nextBoolean();
                    for (int i = 0; i < n; i++) {
                        long s = rnd.nextInt(60);
                        long u = rnd.nextInt(4) == 0 ? MAXK : s + 1 + rnd.nextInt(15);
                        NewIov o = new NewIov(rnd.nextInt(CHANNELS), s, u, value++);
                        batch.add(tag == null ? o : o.withUserTag(tag, only));
                    }
                    Map<String, Map<Long, List<Row>>> next = applyMv(layers, locks, batch);
                    boolean stored;
                    try {
                        store.store(f, batch);
                        stored = true;
                    } catch (StoreException e) {
                        assertThat(e.kind()).isEqualTo(StoreException.Kind.TAG_LOCKED);
                        stored = false;
                    }
                    assertThat(stored).as("step %d batch accepted", step).isEqualTo(next != null);
                    if (next != null) {
                        layers = next;
                        headHistory.put(clock.peek(), copy(layers.get("")));
                    }
                } else if (op == 7) {
                    String name = "T" + (tagCount++);
                    store.tagCurrentHead(f, name, "");
                    snapshots.put(name, copy(layers.get("")));
                } else if (op == 8 && headHistory.size() > 2) {
                    List<Instant> times = new ArrayList<>(headHistory.keySet());
                    Instant at = times.get(rnd.nextInt(times.size() - 1));
                    String name = "D" + (tagCount++);
                    store.tagHeadAsOfDate(f, name, at, "");
                    snapshots.put(name, copy(headHistory.floorEntry(at).getValue()));
                } else {
                    String t = userTags[rnd.nextInt(2)];
                    if (layers.containsKey(t)) {
                        TagLock l = TagLock.values()[rnd.nextInt(3)];
                        store.setTagLock(t, l);
                        locks.put(t, l);
                    }
                }
                compareReads(store, f, layers.get(""), null, rnd);
                for (var e : layers.entrySet()) {
                    if (!e.getKey().isEmpty()) {
                        compareReads(store, f, e.getValue(), e.getKey(), rnd);
                    }
                }
                for (var e : snapshots.entrySet()) {
                    compareReads(store, f, e.getValue(), e.getKey(), rnd);
                }
            }
            if (!snapshots.isEmpty()) {
                String child = snapshots.keySet().iterator().next();
                store.createTagRelation("PARENT-" + seed, child);
                assertThat(store.resolveTag(f, "PARENT-" + seed).name()).isEqualTo(child);
                compareReads(store, f, snapshots.get(child), "PARENT-" + seed, rnd);
            }
        }
    }

    /** The model of multi-version storage: hide overlapped rows, keep their remnants; null when rejected. */
    static Map<String, Map<Long, List<Row>>> applyMv(Map<String, Map<Long, List<Row>>> layers, Map<String, TagLock> locks,
                                                     List<NewIov> batch) {
        Map<String, Map<Long, List<Row>>> m = new HashMap<>();
        layers.forEach((k, v) -> m.put(k, copy(v)));
        for (NewIov o : batch) {
            List<String> targets = new ArrayList<>();
            if (o.userTag() == null || !o.userTagOnly()) {
                targets.add("");
            }
            if (o.userTag() != null) {
                if (locks.getOrDefault(o.userTag(), TagLock.UNLOCKED) == TagLock.LOCKED) {
                    return null;
                }
                targets.add(o.userTag());
            }
            for (String layer : targets) {
                List<Row> rows = m.computeIfAbsent(layer, k -> new HashMap<>()).computeIfAbsent(o.channelId(), k -> new ArrayList<>());
                List<Row> kept = new ArrayList<>();
                for (Row r : rows) {
                    if (r.since < o.until() && r.until > o.since()) {
                        if (!layer.isEmpty() && locks.getOrDefault(layer, TagLock.UNLOCKED) == TagLock.PARTIALLY_LOCKED) {
                            return null;
                        }
                        if (r.since < o.since()) {
                            kept.add(new Row(r.channel, r.since, o.since(), r.value));
                        }
                        if (r.until > o.until()) {
                            kept.add(new Row(r.channel, o.until(), r.until, r.value));
                        }
                    } else {
                        kept.add(r);
                    }
                }
                kept.add(new Row(o.channelId(), o.since(), o.until(), (Integer) o.payload()[0]));
                rows.clear();
                rows.addAll(kept);
            }
        }
        return m;
    }

    // ------------------------------------------------------------------ reads

    private static void compareReads(IovStore store, Node f, Map<Long, List<Row>> model, String tag, Random rnd) {
        for (int q = 0; q < 3; q++) {
            long t1 = rnd.nextInt(80);
            long t2 = rnd.nextInt(5) == 0 ? MAXK : t1 + rnd.nextInt(20);
            ChannelSelection sel = switch (rnd.nextInt(4)) {
                case 0 -> ChannelSelection.all();
                case 1 -> ChannelSelection.channel(rnd.nextInt(CHANNELS));
                case 2 -> ChannelSelection.range(1, 2);
                default -> ChannelSelection.ranges(List.of(new ChannelSelection.Range(0, 0), new ChannelSelection.Range(2, 3)));
            };
            List<Row> expected = new ArrayList<>();
            model.forEach((ch, rows) -> {
                for (Row r : rows) {
                    if (sel.contains(new io.outpost.store.model.Channel(ch, null, null)) && r.since <= t2 && r.until > t1) {
                        expected.add(r);
                    }
                }
            });
            expected.sort((a, b) -> a.channel != b.channel ? Long.compare(a.channel, b.channel) : Long.compare(a.since, b.since));
            List<Row> actual = new ArrayList<>();
            store.browse(f, t1, t2, sel, tag, iov -> actual.add(row(iov)));
            assertThat(actual).as("browse [%d, %d] %s tag %s", t1, t2, sel, tag).containsExactlyElementsOf(expected);
            assertThat(store.count(f, t1, t2, sel, tag)).isEqualTo(expected.size());
        }
    }

    private static Row row(Iov iov) {
        return new Row(iov.channelId(), iov.since(), iov.until(), (Integer) iov.payload()[0]);
    }

    private static Map<Long, List<Row>> copy(Map<Long, List<Row>> m) {
        Map<Long, List<Row>> c = new HashMap<>();
        m.forEach((k, v) -> c.put(k, new ArrayList<>(v)));
        return c;
    }
}
