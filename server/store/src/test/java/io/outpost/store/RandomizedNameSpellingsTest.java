package io.outpost.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.store.globaltag.GlobalTags;
import io.outpost.store.model.ChannelSelection;
import io.outpost.store.model.Iov;
import io.outpost.store.model.KeyType;
import io.outpost.store.model.NewIov;
import io.outpost.store.model.Node;
import io.outpost.store.model.PayloadSpec;
import io.outpost.store.model.ValidityKey;
import io.outpost.store.model.Versioning;
import io.outpost.store.testing.Backends;
import java.text.Normalizer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The names part of the randomized semantics test ({@link RandomizedSemanticsTest} checks the IOV model): random
 * spellings of channel, tag, folderset-tag, global-tag, folder and folderset names — exact, padded with white space
 * at either end, in another case, with a Cyrillic look-alike letter, in the other Unicode normal form (NFC / NFD),
 * with a control character or a lone surrogate — are created, read, resolved and truncated through the store. Every
 * outcome is compared with a model in which a name means exactly what was written: a spelling that was created is
 * its own object, any other spelling finds nothing, and the one rule for new names refuses the ambiguous ones. Each
 * object carries its own value, so a spelling that reached another object would read the wrong value. The same
 * seed must give the same transcript of outcomes on SQLite, PostgreSQL and MariaDB.
 */
class RandomizedNameSpellingsTest {
    private static final long MAXK = ValidityKey.MAX;
    private static final String[] CHANNEL_BASES = {"ch0", "Caf\u00E9", "Gain", "pixel a"};
    private static final String[] TAG_BASES = {"T1", "Gain.v2", "calib_a"};
    private static final String[] PARENT_BASES = {"D1", "set_a"};
    private static final String[] GLOBAL_BASES = {"GT", "run3_a"};
    private static final String[] FOLDER_BASES = {"/N/Gains", "/N/pixel.a", "/N", "/N/sub/Gains"};
    private static final String[] PADS = {" ", "  ", "\t", "\n", "\u00A0", "\u2003", "\u3000"};
    /** Latin letters and the Cyrillic letters that look the same. */
    private static final Map<Character, Character> LOOK_ALIKES = Map.of('a', '\u0430', 'e', '\u0435', 'o', '\u043E',
            'c', '\u0441', 'p', '\u0440', 'x', '\u0445', 'T', '\u0422', 'G', '\u0413', 'N', '\u041D', 'C', '\u0421');
    private static final Set<String> OUTCOME_KINDS = ConcurrentHashMap.newKeySet();
    /** Per seed and backend, every outcome in order: the backends must agree. */
    private static final Map<Long, Map<Backends, List<String>>> TRANSCRIPTS = new ConcurrentHashMap<>();

    static Stream<Arguments> cases() {
        List<Arguments> out = new ArrayList<>();
        for (Backends b : Backends.values()) {
            for (long seed : new long[] {1, 2, 3}) {
                out.add(Arguments.of(b, seed));
            }
        }
        return out.stream();
    }

    /** One spelling of {@code base}: itself, or changed in one or two of the ways a name is mistaken for another. */
    static String spell(String base, Random rnd) {
        String s = base;
        int changes = rnd.nextInt(4) == 0 ? 0 : 1 + rnd.nextInt(2);
        for (int i = 0; i < changes; i++) {
            s = switch (rnd.nextInt(6)) {
                case 0 -> rnd.nextBoolean() ? PADS[rnd.nextInt(PADS.length)] + s : s + PADS[rnd.nextInt(PADS.length)];
                case 1 -> flipCase(s, rnd);
                case 2 -> lookAlike(s, rnd);
                case 3 -> Normalizer.isNormalized(s, Normalizer.Form.NFC) ? Normalizer.normalize(s, Normalizer.Form.NFD)
                        : Normalizer.normalize(s, Normalizer.Form.NFC);
                case 4 -> insert(s, rnd, new String[] {"\u0000", "\t", "\u0007", "\uD800", "\uDC00"}[rnd.nextInt(5)]);
                default -> s;
            };
        }
        return s;
    }

    private static String flipCase(String s, Random rnd) {
        int i = rnd.nextInt(s.length());
        char c = s.charAt(i);
        char flipped = Character.isUpperCase(c) ? Character.toLowerCase(c) : Character.toUpperCase(c);
        return s.substring(0, i) + flipped + s.substring(i + 1);
    }

    private static String lookAlike(String s, Random rnd) {
        List<Integer> at = new ArrayList<>();
        for (int i = 0; i < s.length(); i++) {
            if (LOOK_ALIKES.containsKey(s.charAt(i))) {
                at.add(i);
            }
        }
        if (at.isEmpty()) {
            return s;
        }
        int i = at.get(rnd.nextInt(at.size()));
        return s.substring(0, i) + LOOK_ALIKES.get(s.charAt(i)) + s.substring(i + 1);
    }

    private static String insert(String s, Random rnd, String what) {
        int i = rnd.nextInt(s.length() + 1);
        return s.substring(0, i) + what + s.substring(i);
    }

    /** The one rule for new names, as the model knows it: nothing at either end that is white, nothing invisible. */
    static boolean validChannelName(String s) {
        int first = s.codePointAt(0);
        int last = s.codePointBefore(s.length());
        boolean blankEnd = Character.isWhitespace(first) || Character.isSpaceChar(first) || Character.isWhitespace(last)
                || Character.isSpaceChar(last);
        boolean bad = s.chars().anyMatch(c -> Character.isISOControl(c) || Character.isSurrogate((char) c));
        return !blankEnd && !bad;
    }

    static boolean validTagName(String s) {
        return s.matches("[A-Za-z0-9_][A-Za-z0-9_.-]{0,254}");
    }

    static boolean validPath(String s) {
        return s.matches("(/[A-Za-z0-9_][A-Za-z0-9_.-]{0,63})+");
    }

    @ParameterizedTest(name = "{0} seed {1}")
    @MethodSource("cases")
    void everySpellingMeansExactlyWhatWasWritten(Backends backend, long seed) {
        Random rnd = new Random(seed);
        List<String> transcript = new ArrayList<>();
        try (IovStore store = backend.freshStore("rand_names")) {
            GlobalTags globalTags = new GlobalTags(store);
            Node sv = store.createFolder("/N/sv", Versioning.SINGLE_VERSION, KeyType.TIME, PayloadSpec.parse("v:Int32"), "",
                    true);
            Node mv = store.createFolder("/N/mv", Versioning.MULTI_VERSION, KeyType.TIME, PayloadSpec.parse("v:Int32"), "",
                    false);
            Map<String, Long> channels = new LinkedHashMap<>();      // exact name -> channel id (its value, too)
            Map<Long, Long> until = new HashMap<>();                 // channel id -> the until of its one IOV
            Map<String, Integer> tags = new LinkedHashMap<>();       // folder tag -> the HEAD value it holds
            Map<String, String> parents = new LinkedHashMap<>();     // folderset tag -> its child tag in mv
            Map<String, String> globals = new LinkedHashMap<>();     // global tag -> the tag it chooses in mv
            Map<String, Long> nodes = new LinkedHashMap<>();         // path -> node id
            Set<String> foldersets = new java.util.HashSet<>();
            for (Node n : store.listNodes()) {
                nodes.put(n.path(), n.id());
                if (!n.isFolder()) {
                    foldersets.add(n.path());
                }
            }
            int head = 0;
            for (int step = 0; step < 120; step++) {
                int op = rnd.nextInt(10);
                if (op <= 1) {
                    String name = spell(CHANNEL_BASES[rnd.nextInt(CHANNEL_BASES.length)], rnd);
                    long id = channels.size() + 1;
                    String expected = !validChannelName(name) ? "INVALID_ARGUMENT"
                            : channels.containsKey(name) ? "ALREADY_EXISTS" : "ok";
                    String got = outcome(() -> store.createChannel(sv, id, name, ""));
                    record(transcript, step, "create channel", name, expected, got);
                    if (got.equals("ok")) {
                        channels.put(name, id);
                        until.put(id, MAXK);
                        store.store(sv, List.of(new NewIov(id, 0, MAXK, (int) id)));
                    }
                } else if (op == 2) {
                    String name = spellExisting(channels.keySet(), CHANNEL_BASES, rnd);
                    long at = 1 + rnd.nextInt(1000);
                    Long id = channels.get(name);
                    String expected = id == null ? "CHANNEL_NOT_FOUND" : until.get(id) == MAXK ? "1"
                            : at < until.get(id) ? "INVALID_KEY" : "0";
                    String got = outcome(() -> store.truncateValidity(sv, at, ChannelSelection.named(name)));
                    record(transcript, step, "truncate", name + " at " + at, expected, got);
                    if (got.equals("1")) {
                        until.put(id, at);
                    }
                } else if (op == 3) {
                    String tag = spell(TAG_BASES[rnd.nextInt(TAG_BASES.length)], rnd);
                    int value = ++head;
                    store.store(mv, List.of(new NewIov(0, 0, MAXK, value)));
                    String expected = !validTagName(tag) ? "INVALID_ARGUMENT" : tags.containsKey(tag) ? "ALREADY_EXISTS"
                            : "ok";
                    String got = outcome(() -> store.tagCurrentHead(mv, tag, ""));
                    record(transcript, step, "tag", tag, expected, got);
                    if (got.equals("ok")) {
                        tags.put(tag, value);
                    }
                } else if (op == 4 && !tags.isEmpty()) {
                    String parent = spell(PARENT_BASES[rnd.nextInt(PARENT_BASES.length)], rnd);
                    String child = pick(tags.keySet(), rnd);
                    String expected = !validTagName(parent) ? "INVALID_ARGUMENT"
                            : parents.containsKey(parent) ? "TAG_RELATION_EXISTS" : "ok";
                    String got = outcome(() -> {
                        store.createTagRelation(mv, parent, child);
                        return null;
                    });
                    record(transcript, step, "relate", parent + " -> " + child, expected, got);
                    if (got.equals("ok")) {
                        parents.put(parent, child);
                    }
                } else if (op == 5 && !tags.isEmpty()) {
                    String name = spell(GLOBAL_BASES[rnd.nextInt(GLOBAL_BASES.length)], rnd);
                    String chosen = pick(tags.keySet(), rnd);
                    String expected = !validTagName(name) ? "INVALID_ARGUMENT" : globals.containsKey(name)
                            ? "ALREADY_EXISTS" : "ok";
                    String got = outcome(() -> globalTags.create(name, "", Map.of("/N/mv", chosen)));
                    record(transcript, step, "global tag", name + " -> " + chosen, expected, got);
                    if (got.equals("ok")) {
                        globals.put(name, chosen);
                    }
                } else if (op == 6) {
                    String path = spell(FOLDER_BASES[rnd.nextInt(FOLDER_BASES.length)], rnd);
                    int slash = path.lastIndexOf('/');
                    String parent = slash <= 0 ? "/" : path.substring(0, slash);
                    String expected = !validPath(path) ? "INVALID_ARGUMENT" : nodes.containsKey(path) ? "ALREADY_EXISTS"
                            : !nodes.containsKey(parent) ? "FOLDER_NOT_FOUND"
                            : !foldersets.contains(parent) ? "INVALID_ARGUMENT" : "ok";
                    String got = outcome(() -> store.createFolder(path, Versioning.SINGLE_VERSION, KeyType.TIME,
                            PayloadSpec.parse("v:Int32"), "", false));
                    record(transcript, step, "create folder", path, expected, got);
                    if (got.equals("ok")) {
                        Node f = store.folder(path);
                        nodes.put(path, f.id());
                        store.store(f, List.of(new NewIov(0, 0, MAXK, (int) f.id())));
                    }
                }
                // after every step, a few lookups of random spellings of every kind of name
                for (int q = 0; q < 3; q++) {
                    checkChannel(store, sv, spellExisting(channels.keySet(), CHANNEL_BASES, rnd), channels, until,
                            transcript, step);
                    checkTag(store, mv, spellExisting(tags.keySet(), TAG_BASES, rnd), tags, parents, globals, transcript,
                            step);
                    checkTag(store, mv, spellExisting(parents.keySet(), PARENT_BASES, rnd), tags, parents, globals,
                            transcript, step);
                    checkTag(store, mv, spellExisting(globals.keySet(), GLOBAL_BASES, rnd), tags, parents, globals,
                            transcript, step);
                    checkNode(store, spellExisting(nodes.keySet(), FOLDER_BASES, rnd), nodes, transcript, step);
                }
            }
            // every object is still reached by its own name, with its own value
            for (String name : channels.keySet()) {
                checkChannel(store, sv, name, channels, until, transcript, -1);
            }
            for (String name : tags.keySet()) {
                checkTag(store, mv, name, tags, parents, globals, transcript, -1);
            }
            assertThat(channels.size() + tags.size() + parents.size() + globals.size()).as("objects created").isPositive();
        }
        TRANSCRIPTS.computeIfAbsent(seed, k -> new ConcurrentHashMap<>()).put(backend, transcript);
    }

    /** A spelling of an existing name half the time (so exact and near spellings meet real objects), else of a base. */
    private static String spellExisting(Set<String> existing, String[] bases, Random rnd) {
        String base = !existing.isEmpty() && rnd.nextBoolean() ? pick(existing, rnd) : bases[rnd.nextInt(bases.length)];
        return spell(base, rnd);
    }

    private static String pick(Set<String> names, Random rnd) {
        return new ArrayList<>(names).get(rnd.nextInt(names.size()));
    }

    /** A read by channel name finds that channel's one IOV, with its own value, or CHANNEL_NOT_FOUND. */
    private static void checkChannel(IovStore store, Node sv, String name, Map<String, Long> channels,
                                     Map<Long, Long> until, List<String> transcript, int step) {
        Long id = channels.get(name);
        List<Iov> rows = new ArrayList<>();
        String got = outcome(() -> store.browse(sv, 0, MAXK, ChannelSelection.named(name), null, rows::add));
        record(transcript, step, "read channel", name, id == null ? "CHANNEL_NOT_FOUND" : "1", got);
        if (id != null) {
            assertThat(rows).singleElement().satisfies(r -> {
                assertThat(r.channelId()).isEqualTo(id);
                assertThat(r.payload()).containsExactly(id.intValue());
                assertThat(r.until()).isEqualTo(until.get(id));
            });
        }
        record(transcript, step, "count channel", name, id == null ? "CHANNEL_NOT_FOUND" : "1",
                outcome(() -> store.count(sv, 0, MAXK, ChannelSelection.named(name), null)));
    }

    /** A read in a tag, folderset tag or global tag gives the value of the folder tag it means, or TAG_NOT_FOUND. */
    private static void checkTag(IovStore store, Node mv, String name, Map<String, Integer> tags,
                                 Map<String, String> parents, Map<String, String> globals, List<String> transcript,
                                 int step) {
        String folderTag = tags.containsKey(name) ? name : parents.containsKey(name) ? parents.get(name)
                : globals.get(name);
        List<Iov> rows = new ArrayList<>();
        String got = outcome(() -> store.browse(mv, 0, MAXK, ChannelSelection.all(), name, rows::add));
        record(transcript, step, "read tag", name, folderTag == null ? "TAG_NOT_FOUND" : "1", got);
        if (folderTag != null) {
            assertThat(rows).singleElement().satisfies(r -> assertThat(r.payload()).containsExactly(tags.get(folderTag)));
            assertThat(store.resolveTag(mv, name).name()).isEqualTo(folderTag);
        } else {
            record(transcript, step, "resolve tag", name, "TAG_NOT_FOUND", outcome(() -> store.resolveTag(mv, name)));
        }
        // a tag of another node named as a global tag is refused as such
        String global = globals.containsKey(name) ? "ok" : folderTag != null ? "INVALID_ARGUMENT" : "TAG_NOT_FOUND";
        record(transcript, step, "find global tag", name, global,
                outcome(() -> new GlobalTags(store).find(name)));
    }

    /** A lookup by path finds the node of exactly that path (a folder reads its own value), or FOLDER_NOT_FOUND. */
    private static void checkNode(IovStore store, String path, Map<String, Long> nodes, List<String> transcript,
                                  int step) {
        Long id = nodes.get(path);
        Node[] found = new Node[1];
        record(transcript, step, "node", path, id == null ? "FOLDER_NOT_FOUND" : "ok",
                outcome(() -> found[0] = store.node(path)));
        if (id != null) {
            assertThat(found[0].id()).isEqualTo(id);
            if (found[0].isFolder() && !path.equals("/N/sv") && !path.equals("/N/mv")) {
                List<Iov> rows = new ArrayList<>();
                store.browse(found[0], 0, MAXK, ChannelSelection.all(), null, rows::add);
                assertThat(rows).singleElement().satisfies(r -> assertThat(r.payload()).containsExactly(id.intValue()));
            }
        }
    }

    private static void record(List<String> transcript, int step, String what, String name, String expected,
                               String got) {
        OUTCOME_KINDS.add(what + " " + got);
        assertThat(got).as("step %d: %s '%s'", step, what, printable(name)).isEqualTo(expected);
        transcript.add(step + " " + what + " '" + printable(name) + "' " + got);
    }

    /** The outcome of a call: "ok", the number it returned, or the kind of store error it ended with. */
    private static String outcome(Supplier<?> call) {
        try {
            Object r = call.get();
            return r instanceof Number n ? String.valueOf(n.longValue()) : "ok";
        } catch (StoreException e) {
            return e.kind().name();
        }
    }

    private static String printable(String s) {
        StringBuilder b = new StringBuilder();
        for (char c : s.toCharArray()) {
            b.append(c < 0x20 || c > 0x7E ? String.format("\\u%04X", (int) c) : String.valueOf(c));
        }
        return b.toString();
    }

    @AfterAll
    static void backendsAgreeAndEveryCaseWasMet() {
        for (var perSeed : TRANSCRIPTS.entrySet()) {
            List<String> first = null;
            for (var e : perSeed.getValue().entrySet()) {
                if (first == null) {
                    first = e.getValue();
                } else {
                    assertThat(e.getValue()).as("seed %d on %s", perSeed.getKey(), e.getKey()).isEqualTo(first);
                }
            }
        }
        if (TRANSCRIPTS.values().stream().mapToInt(Map::size).sum() < cases().count()) {
            return; // a filtered run: coverage is not meaningful
        }
        assertThat(OUTCOME_KINDS).contains("create channel ok", "create channel INVALID_ARGUMENT",
                "create channel ALREADY_EXISTS", "truncate 1", "truncate CHANNEL_NOT_FOUND", "read channel 1", "read channel CHANNEL_NOT_FOUND",
                "tag ok", "tag INVALID_ARGUMENT", "tag ALREADY_EXISTS", "relate ok", "relate INVALID_ARGUMENT", "global tag ok", "global tag INVALID_ARGUMENT",
                "create folder ok", "create folder INVALID_ARGUMENT", "create folder FOLDER_NOT_FOUND", "read tag 1",
                "read tag TAG_NOT_FOUND", "node ok", "node FOLDER_NOT_FOUND", "find global tag ok",
                "find global tag TAG_NOT_FOUND");
    }
}
