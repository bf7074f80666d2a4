package io.outpost.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.store.db.Database;
import io.outpost.store.model.Channel;
import io.outpost.store.model.ChannelSelection;
import io.outpost.store.model.Iov;
import io.outpost.store.model.KeyType;
import io.outpost.store.model.NewIov;
import io.outpost.store.model.Node;
import io.outpost.store.model.PayloadSpec;
import io.outpost.store.model.TagKind;
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
 * model kept by the test, and every refusal compared with the error COOL gives for the same mistake: overlapping
 * stores, back-insertions, truncation of open-ended IOVs, user tags (also locked and partially locked), standard
 * tags of the HEAD now and as of a past date (refused when there is nothing to tag), deleted tags, locks on the
 * right and the wrong node, tag relations that create missing tags, resolution through a folderset, and counts
 * and browses that agree on an unknown channel name. Names (padded, case, look-alike and normal-form spellings) have
 * their own randomized test, {@link RandomizedNameSpellingsTest}.
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
        RUNS.incrementAndGet();
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
                    SEEN.add(e.kind());
                    stored = false;
                }
                assertThat(stored).as("step %d batch %s accepted by store vs model", step, batch).isEqualTo(next != null);
                if (next != null) {
                    model = next;
                }
                if (rnd.nextInt(4) == 0) {
                    long at = rnd.nextInt(70);
                    ChannelSelection sel = rnd.nextBoolean() ? ChannelSelection.all()
                            : ChannelSelection.channel(rnd.nextInt(CHANNELS));
                    Map<Long, List<Row>> truncated = copy(model);
                    StoreException.Kind expected = truncateSv(truncated, at, sel);
                    int[] count = {-1};
                    assertThat(outcome(() -> count[0] = store.truncateValidity(f, at, sel)))
                            .as("step %d truncate at %d %s", step, at, sel).isEqualTo(expected);
                    if (expected == null) {
                        assertThat(count[0]).isEqualTo(countTruncated(model, at, sel));
                        if (count[0] > 0) {
                            event("truncated");
                        }
                        model = truncated;
                    }
                }
                compareReads(store, f, model, null, rnd);
            }
            // a tag read on a single-version folder is TAG_NOT_FOUND, as in COOL
            assertThat(outcome(() -> store.count(f, 0, MAXK, ChannelSelection.all(), "T0")))
                    .isEqualTo(StoreException.Kind.TAG_NOT_FOUND);
            assertThat(outcome(() -> store.tagCurrentHead(f, "T0", ""))).isEqualTo(StoreException.Kind.FOLDER_IS_SINGLE_VERSION);
            assertThat(outcome(() -> store.deleteTag(f, "T0"))).isEqualTo(StoreException.Kind.FOLDER_IS_SINGLE_VERSION);
            assertThat(outcome(() -> store.createTagRelation(f, "P", "C"))).isEqualTo(StoreException.Kind.FOLDER_IS_SINGLE_VERSION);
            // HEAD is refused before anything else; the root has no parent to relate to
            assertThat(outcome(() -> store.deleteTag(f, "HEAD"))).isEqualTo(StoreException.Kind.RESERVED_HEAD_TAG);
            assertThat(outcome(() -> store.createTagRelation(f, "HEAD", "C"))).isEqualTo(StoreException.Kind.RESERVED_HEAD_TAG);
            assertThat(outcome(() -> store.createTagRelation(store.node("/"), "P", "C")))
                    .isEqualTo(StoreException.Kind.INVALID_TAG_RELATION);
            assertThat(store.tags(store.node("/"))).as("refused relations create no tags").isEmpty();
        }
    }

    /** The model of COOL's truncateObjectValidity; the error kind when it must be refused (the model is then junk). */
    static StoreException.Kind truncateSv(Map<Long, List<Row>> model, long at, ChannelSelection sel) {
        for (var e : model.entrySet()) {
            if (!sel.contains(new Channel(e.getKey(), null, null))) {
                continue;
            }
            List<Row> rows = e.getValue();
            for (int i = 0; i < rows.size(); i++) {
                Row r = rows.get(i);
                if (r.since <= at && at < r.until) {
                    if (r.until != MAXK || r.since == at) {
                        return StoreException.Kind.INVALID_KEY;
                    }
                    rows.set(i, new Row(r.channel, r.since, at, r.value));
                }
            }
        }
        return null;
    }

    static long countTruncated(Map<Long, List<Row>> model, long at, ChannelSelection sel) {
        return model.entrySet().stream().filter(e -> sel.contains(new Channel(e.getKey(), null, null)))
                .flatMap(e -> e.getValue().stream()).filter(r -> r.since <= at && at < r.until).count();
    }

    /** The kind of store error a call ends with, or null when it succeeds. */
    static StoreException.Kind outcome(Runnable call) {
        try {
            call.run();
            return null;
        } catch (StoreException e) {
            SEEN.add(e.kind());
            return e.kind();
        }
    }

    /** Every refusal a run met, and the successes worth counting: the random histories must reach each case. */
    private static final java.util.Set<StoreException.Kind> SEEN = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private static final Map<String, Integer> EVENTS = new java.util.concurrent.ConcurrentHashMap<>();
    private static final java.util.concurrent.atomic.AtomicInteger RUNS = new java.util.concurrent.atomic.AtomicInteger();

    private static void event(String what) {
        EVENTS.merge(what, 1, Integer::sum);
    }

    @org.junit.jupiter.api.AfterAll
    static void everyCaseWasReached() {
        if (RUNS.get() < 2 * cases().count()) {
            return; // only part of the class ran (a filtered run): coverage is not meaningful
        }
        assertThat(SEEN).as("refusals met").contains(StoreException.Kind.TAG_NOT_CREATED, StoreException.Kind.TAG_LOCKED,
                StoreException.Kind.ALREADY_EXISTS, StoreException.Kind.TAG_NOT_FOUND,
                StoreException.Kind.NODE_RELATION_NOT_FOUND, StoreException.Kind.TAG_RELATION_NOT_FOUND,
                StoreException.Kind.TAG_RELATION_EXISTS, StoreException.Kind.INVALID_TAG_RELATION,
                StoreException.Kind.RESERVED_HEAD_TAG, StoreException.Kind.INVALID_KEY,
                StoreException.Kind.CHANNEL_NOT_FOUND, StoreException.Kind.FOLDER_IS_SINGLE_VERSION,
                StoreException.Kind.OVERLAP);
        assertThat(EVENTS).as("successes met").containsKeys("truncated", "tag deleted", "tag emptied", "relation",
                "empty tag filled by tagging", "empty tag became user tag", "locked standard tag refused a store");
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

    /** What the model knows of one tag of the MV folder. */
    static final class TagState {
        TagKind kind;
        Map<Long, List<Row>> rows;
        TagLock lock = TagLock.UNLOCKED;
        boolean related;

        TagState(TagKind kind, Map<Long, List<Row>> rows) {
            this.kind = kind;
            this.rows = rows;
        }

        boolean hasIovs() {
            return rows.values().stream().anyMatch(l -> !l.isEmpty());
        }
    }

    private static final String[] FOLDER_TAGS = {"T0", "T1", "T2", "U1", "U2"};
    private static final String[] SET_TAGS = {"P0", "P1"};

    @ParameterizedTest(name = "{0} seed {1}")
    @MethodSource("cases")
    void multiVersionMatchesModel(Backends backend, long seed) {
        RUNS.incrementAndGet();
        Random rnd = new Random(seed);
        TickingClock clock = new TickingClock();
        Database db = Database.open(backend.freshConfig("rand_mv"));
        new SchemaManager(db).migrate();
        try (IovStore store = new IovStore(db, clock)) {
            Node f = store.createFolder("/R/set/mv", Versioning.MULTI_VERSION, KeyType.RUN_LUMI, PayloadSpec.parse("v:Int32"),
                    "", true);
            Node set = store.node("/R/set");
            Node other = store.createFolder("/R/set/other", Versioning.MULTI_VERSION, KeyType.RUN_LUMI,
                    PayloadSpec.parse("v:Int32"), "", false);
            Map<Long, List<Row>> head = new HashMap<>();
            Map<String, TagState> tags = new HashMap<>();          // the folder's tags
            Map<String, TagLock> parentLocks = new HashMap<>();    // the folderset's tags
            Map<String, String> children = new HashMap<>();        // folderset tag -> its child tag in the folder
            java.util.Set<String> otherChildren = new java.util.HashSet<>(); // folderset tags with a child in other
            TreeMap<Instant, Map<Long, List<Row>>> headHistory = new TreeMap<>();
            headHistory.put(clock.peek(), copy(head));
            int value = 0;
            for (int step = 0; step < 70; step++) {
                int op = rnd.nextInt(16);
                op = op >= 14 ? 8 : op; // locks three times as often: locked tags meet stores, tagging, deletes
                // half the time a tag the folder has, so locks, deletes and stores meet existing tags often
                List<String> existing = java.util.Arrays.stream(FOLDER_TAGS).filter(tags::containsKey).toList();
                String name = !existing.isEmpty() && rnd.nextBoolean() ? existing.get(rnd.nextInt(existing.size()))
                        : FOLDER_TAGS[rnd.nextInt(FOLDER_TAGS.length)];
                TagState t = tags.get(name);
                if (op < 6) {
                    int n = 1 + rnd.nextInt(4);
                    List<NewIov> batch = new ArrayList<>();
                    String tag = rnd.nextInt(3) == 0 ? name : null;
                    boolean only = tag != null && rnd.nextBoolean();
                    for (int i = 0; i < n; i++) {
                        long s = rnd.nextInt(60);
                        long u = rnd.nextInt(4) == 0 ? MAXK : s + 1 + rnd.nextInt(15);
                        NewIov o = new NewIov(rnd.nextInt(CHANNELS), s, u, value++);
                        batch.add(tag == null ? o : o.withUserTag(tag, only));
                    }
                    StoreException.Kind expected = null;
                    if (t != null && t.lock == TagLock.LOCKED && tag != null) {
                        expected = StoreException.Kind.TAG_LOCKED;
                    } else if (t != null && tag != null && t.kind != TagKind.USER && t.hasIovs()) {
                        expected = StoreException.Kind.ALREADY_EXISTS;
                    }
                    Map<String, Map<Long, List<Row>>> layers = new HashMap<>();
                    layers.put("", head);
                    if (tag != null) {
                        layers.put(tag, t == null || t.kind != TagKind.USER ? new HashMap<>() : t.rows);
                    }
                    Map<String, Map<Long, List<Row>>> next = expected != null ? null : applyMv(layers,
                            tag == null || t == null ? Map.of() : Map.of(tag, t.lock), batch);
                    if (expected == null && next == null) {
                        expected = StoreException.Kind.TAG_LOCKED;
                    }
                    assertThat(outcome(() -> store.store(f, batch))).as("step %d store %s", step, batch).isEqualTo(expected);
                    if (t != null && tag != null && t.kind == TagKind.STANDARD && t.lock == TagLock.LOCKED) {
                        event("locked standard tag refused a store");
                    }
                    if (expected == null) {
                        if (t != null && tag != null && t.kind == TagKind.STANDARD) {
                            event("empty tag became user tag");
                        }
                        head = next.get("");
                        headHistory.put(clock.peek(), copy(head));
                        if (tag != null) {
                            if (t == null) {
                                t = new TagState(TagKind.USER, null);
                                tags.put(tag, t);
                            }
                            t.kind = TagKind.USER;
                            t.rows = next.get(tag);
                        }
                    }
                } else if (op == 6 || op == 7 && headHistory.size() > 1) {
                    Instant at = null;
                    Map<Long, List<Row>> content = head;
                    if (op == 7) {
                        List<Instant> times = new ArrayList<>(headHistory.keySet());
                        at = times.get(rnd.nextInt(times.size()));
                        content = headHistory.floorEntry(at).getValue();
                    }
                    boolean empty = content.values().stream().allMatch(List::isEmpty);
                    StoreException.Kind expected = empty ? StoreException.Kind.TAG_NOT_CREATED
                            : t != null && t.hasIovs() ? StoreException.Kind.ALREADY_EXISTS
                            : t != null && t.lock != TagLock.UNLOCKED ? StoreException.Kind.TAG_LOCKED : null;
                    Instant asOf = at;
                    assertThat(outcome(() -> {
                        if (asOf == null) {
                            store.tagCurrentHead(f, name, "");
                        } else {
                            store.tagHeadAsOfDate(f, name, asOf, "");
                        }
                    })).as("step %d tag %s as of %s", step, name, at).isEqualTo(expected);
                    if (expected == null) {
                        if (t == null) {
                            t = new TagState(TagKind.STANDARD, null);
                            tags.put(name, t);
                        } else {
                            event("empty tag filled by tagging");
                        }
                        t.kind = TagKind.STANDARD;
                        t.rows = copy(content);
                    } else if (t == null) {
                        // a refused tag leaves its name free
                        assertThat(outcome(() -> store.tag(name))).isEqualTo(StoreException.Kind.TAG_NOT_FOUND);
                    }
                } else if (op == 8) {
                    TagLock l = TagLock.values()[rnd.nextInt(3)];
                    if (rnd.nextInt(4) == 0) {
                        String p = SET_TAGS[rnd.nextInt(2)];
                        StoreException.Kind expected = parentLocks.containsKey(p) ? null : StoreException.Kind.TAG_NOT_FOUND;
                        assertThat(outcome(() -> store.setTagLock(set, p, l))).isEqualTo(expected);
                        if (expected == null) {
                            parentLocks.put(p, l);
                        }
                    } else {
                        // a lock on a node that does not own the tag fails
                        Node node = rnd.nextInt(4) == 0 ? set : f;
                        StoreException.Kind expected = t != null && node == f ? null : StoreException.Kind.TAG_NOT_FOUND;
                        assertThat(outcome(() -> store.setTagLock(node, name, l))).as("lock %s on %s", name, node.path())
                                .isEqualTo(expected);
                        if (expected == null) {
                            t.lock = l;
                            if (t.kind == TagKind.STANDARD && l == TagLock.LOCKED) {
                                // storing under a locked standard tag's name: COOL's TagIsLocked, nothing stored
                                List<NewIov> batch = List.of(new NewIov(0, 1, 2, value++).withUserTag(name, false));
                                assertThat(outcome(() -> store.store(f, batch))).isEqualTo(StoreException.Kind.TAG_LOCKED);
                                event("locked standard tag refused a store");
                            }
                        }
                    }
                } else if (op == 9) {
                    StoreException.Kind expected = t == null ? StoreException.Kind.TAG_NOT_FOUND
                            : t.lock != TagLock.UNLOCKED ? StoreException.Kind.TAG_LOCKED : null;
                    boolean[] freed = {false};
                    assertThat(outcome(() -> freed[0] = store.deleteTag(f, name))).as("step %d delete %s", step, name)
                            .isEqualTo(expected);
                    if (expected == null) {
                        assertThat(freed[0]).isEqualTo(!t.related);
                        event(t.related ? "tag emptied" : "tag deleted");
                        if (t.related) {
                            t.rows = new HashMap<>();
                        } else {
                            tags.remove(name);
                            assertThat(outcome(() -> store.tag(name))).isEqualTo(StoreException.Kind.TAG_NOT_FOUND);
                        }
                    }
                } else if (op == 12) {
                    // a folderset tag related to the sibling folder only: resolving it in f finds no child tag
                    String p = SET_TAGS[rnd.nextInt(2)];
                    StoreException.Kind expected = tags.containsKey(p) ? StoreException.Kind.ALREADY_EXISTS
                            : parentLocks.get(p) == TagLock.LOCKED ? StoreException.Kind.TAG_LOCKED
                            : otherChildren.contains(p) ? StoreException.Kind.TAG_RELATION_EXISTS : null;
                    assertThat(outcome(() -> store.createTagRelation(other, p, "O-" + p))).isEqualTo(expected);
                    if (expected == null) {
                        parentLocks.putIfAbsent(p, TagLock.UNLOCKED);
                        otherChildren.add(p);
                        if (!children.containsKey(p)) {
                            assertThat(outcome(() -> store.resolveTag(f, p)))
                                    .isEqualTo(StoreException.Kind.TAG_RELATION_NOT_FOUND);
                            assertThat(outcome(() -> store.count(f, 0, MAXK, ChannelSelection.all(), p)))
                                    .isEqualTo(StoreException.Kind.TAG_NOT_FOUND);
                        }
                    }
                } else if (op == 10 || op == 11) {
                    // now and then a parent that is the folder's own tag, or a child that is the folderset's
                    String p = rnd.nextInt(6) == 0 && tags.containsKey(name) ? name : SET_TAGS[rnd.nextInt(2)];
                    String c = rnd.nextInt(6) == 0 ? SET_TAGS[rnd.nextInt(2)]
                            : FOLDER_TAGS[rnd.nextInt(FOLDER_TAGS.length)];
                    // a tag of another node named as parent or child: COOL's TagExists (it would create it here)
                    StoreException.Kind expected = p.equals(c) ? StoreException.Kind.INVALID_TAG_RELATION
                            : tags.containsKey(p) || parentLocks.containsKey(c) ? StoreException.Kind.ALREADY_EXISTS
                            : parentLocks.get(p) == TagLock.LOCKED ? StoreException.Kind.TAG_LOCKED
                            : children.containsKey(p) ? StoreException.Kind.TAG_RELATION_EXISTS : null;
                    assertThat(outcome(() -> store.createTagRelation(f, p, c))).as("step %d relate %s -> %s", step, p, c)
                            .isEqualTo(expected);
                    if (expected == null) {
                        event("relation");
                        parentLocks.putIfAbsent(p, TagLock.UNLOCKED);
                        children.put(p, c);
                        tags.computeIfAbsent(c, k -> new TagState(TagKind.STANDARD, new HashMap<>())).related = true;
                    }
                } else {
                    // resolution errors, as COOL names them
                    assertThat(outcome(() -> store.resolveTag(f, "HEAD"))).isEqualTo(StoreException.Kind.RESERVED_HEAD_TAG);
                    if (t != null) {
                        assertThat(outcome(() -> store.resolveTag(other, name)))
                                .isEqualTo(StoreException.Kind.NODE_RELATION_NOT_FOUND);
                        assertThat(outcome(() -> store.count(other, 0, MAXK, ChannelSelection.all(), name)))
                                .isEqualTo(StoreException.Kind.TAG_NOT_FOUND);
                    }
                    for (String p : SET_TAGS) {
                        String resolvesTo = tags.containsKey(p) ? p : children.get(p);
                        StoreException.Kind expected = resolvesTo != null ? null : !parentLocks.containsKey(p) ? StoreException.Kind.TAG_NOT_FOUND
                                : children.containsKey(p) ? null : StoreException.Kind.TAG_RELATION_NOT_FOUND;
                        assertThat(outcome(() -> store.resolveTag(f, p))).as("resolve %s", p).isEqualTo(expected);
                        if (expected == null) {
                            assertThat(store.resolveTag(f, p).name()).isEqualTo(resolvesTo);
                        }
                    }
                }
                compareReads(store, f, head, null, rnd);
                for (var e : tags.entrySet()) {
                    compareReads(store, f, e.getValue().rows, e.getKey(), rnd);
                }
                for (var e : children.entrySet()) {
                    compareReads(store, f, tags.get(e.getValue()).rows, e.getKey(), rnd);
                }
                for (String gone : FOLDER_TAGS) {
                    if (!tags.containsKey(gone)) {
                        assertThat(outcome(() -> store.count(f, 0, MAXK, ChannelSelection.all(), gone)))
                                .isEqualTo(StoreException.Kind.TAG_NOT_FOUND);
                    }
                }
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
                    if (sel.contains(new Channel(ch, null, null)) && r.since <= t2 && r.until > t1) {
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
        // browse and count agree on a channel name the folder does not have
        ChannelSelection unknown = ChannelSelection.named("NO_SUCH_CHANNEL");
        assertThat(outcome(() -> store.browse(f, 0, MAXK, unknown, tag, iov -> { })))
                .isEqualTo(StoreException.Kind.CHANNEL_NOT_FOUND);
        assertThat(outcome(() -> store.count(f, 0, MAXK, unknown, tag))).isEqualTo(StoreException.Kind.CHANNEL_NOT_FOUND);
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
