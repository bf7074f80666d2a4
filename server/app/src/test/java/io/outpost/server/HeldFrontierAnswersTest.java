package io.outpost.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.frontier.protocol.P1Codec;
import io.outpost.server.support.RunningService;
import io.outpost.store.IovStore;
import io.outpost.testkit.FrontierDecoder;
import io.outpost.store.StoreException;
import io.outpost.store.db.DatabaseConfig;
import io.outpost.store.db.Layer;
import io.outpost.store.model.ChannelSelection;
import io.outpost.store.model.KeyType;
import io.outpost.store.model.NewIov;
import io.outpost.store.model.Node;
import io.outpost.store.model.PayloadSpec;
import io.outpost.store.model.Tag;
import io.outpost.store.model.TagKind;
import io.outpost.store.model.ValidityKey;
import io.outpost.store.model.Versioning;
import io.outpost.store.testing.Backends;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * COOL's IOV reads through Frontier answered from held rows are byte-identical to the database's answers: two
 * services on one database, one answering from held rows (the default) and one from the database
 * ({@code outpost.rows.enabled=false}), are sent the same random COOL statements (at-time reads with and without the
 * channel table, browses from a key, channel selections, column choices: COOL's own whole IOV row and payload, subsets
 * and other orders; quoted and unquoted names, hints, zip levels) over random single-version histories whose open
 * IOVs later writes and truncations close in place, and over multi-version ones read in the HEAD, user tags and
 * standard tags (hidden and split rows; tagged objects hidden since), with writes between requests; every response
 * body must be the same bytes with the same Last-Modified and Cache-Control, each request answered from held rows
 * exactly when it should be, and a difference names the statement (with the seed). Columns whose text each database
 * writes its own way (Double) go to the database on both services, and are compared all the same.
 */
class HeldFrontierAnswersTest {
    private static final String FRONTIER = "/Outpost/Frontier/type=frontier_request:1:DEFAULT&encoding=";
    private static final String SPEC = "s:String255,n:Int32,b:Bool,bl:Blob64k,l:Int64,u:UChar,t:String4k";
    private static final int CHANNELS = 12;

    private record Folder(Node node, List<String> payloadColumns) {
    }

    @ParameterizedTest
    @EnumSource(Backends.class)
    void heldAnswersAreTheDatabasesBytes(Backends backend) throws Exception {
        long seed = System.nanoTime();
        Random r = new Random(seed);
        DatabaseConfig cfg = backend.freshConfig("held_frontier");
        // each service takes a table set's Last-Modified when first asked and keeps it for the whole test, so that
        // both give the same one whatever the timing (a kept time expiring between the two requests would differ)
        String[] user = user(backend);
        try (IovStore loader = IovStore.open(cfg)) {
            List<Folder> folders = new ArrayList<>();
            folders.add(new Folder(loader.createFolder("/HELD/a", Versioning.SINGLE_VERSION, KeyType.TIME,
                    PayloadSpec.parse(SPEC), "", true), List.of("S", "N", "B", "BL", "L", "U", "T")));
            folders.add(new Folder(loader.createFolder("/HELD/b", Versioning.SINGLE_VERSION, KeyType.RUN_LUMI,
                    PayloadSpec.parse("x:UInt63,v:Double"), "", true), List.of("X", "V")));
            for (Folder f : folders) {
                loader.createChannel(f.node(), CHANNELS + 5, "empty", "a channel without IOVs");
            }
            long[] nextSince = new long[CHANNELS];
            for (int i = 0; i < 4; i++) {
                write(loader, folders, r, nextSince);
            }
            assertThat(count(loader, "SELECT COUNT(*) FROM " + folders.get(0).node().iovTable()
                    + " WHERE LASTMOD_DATE <> SYS_INSTIME"))
                    .as("open IOVs closed in place by later writes (seed %d)", seed).isPositive();
            try (RunningService held = RunningService.start(cfg.jdbcUrl(), user);
                 RunningService database = RunningService.start(cfg.jdbcUrl(), concat(user, "--outpost.rows.enabled=false"))) {
                double heldBefore = heldAnswers(held);
                int compared = 0;
                for (int i = 0; i < 160; i++) {
                    if (i % 16 == 15) {
                        write(loader, folders, r, nextSince); // a write between requests: both must see it
                    } else if (i % 16 == 7) {
                        truncate(loader, folders.get(r.nextInt(folders.size())), r, nextSince);
                    }
                    Folder f = folders.get(r.nextInt(folders.size()));
                    String sql = statement(r, f, Layer.SV, nextSince[0] + 100);
                    String path = FRONTIER + (r.nextInt(4) == 0 ? "BLOB" : "BLOBzip" + r.nextInt(10)) + "&p1="
                            + P1Codec.encode(sql);
                    HttpResponse<byte[]> fromDatabase = response(database, path);
                    double before = heldAnswers(held);
                    HttpResponse<byte[]> fromHeld = response(held, path);
                    assertThat(heldAnswers(held) - before).as("answered from held rows? seed %d, %s: %s", seed,
                            backend, sql).isEqualTo(heldColumns(sql, Layer.SV) ? 1.0 : 0.0);
                    assertThat(decoded(fromHeld.body())).as("rows of seed %d, %s: %s", seed, backend, sql)
                            .isEqualTo(decoded(fromDatabase.body()));
                    assertThat(new String(fromHeld.body(), StandardCharsets.ISO_8859_1))
                            .as("seed %d, %s: %s", seed, backend, sql)
                            .isEqualTo(new String(fromDatabase.body(), StandardCharsets.ISO_8859_1))
                            .contains("error=\"0\"");
                    for (String h : List.of("Last-Modified", "Cache-Control")) {
                        assertThat(fromHeld.headers().firstValue(h)).as("%s of seed %d, %s: %s", h, seed, backend, sql)
                                .isEqualTo(fromDatabase.headers().firstValue(h));
                    }
                    compared++;
                }
                assertThat(compared).isEqualTo(160);
                assertThat(heldAnswers(held) - heldBefore).as("answers from held rows (seed %d)", seed)
                        .isGreaterThan(40);
                assertThat(heldAnswers(database)).as("the database service never answers from held rows").isZero();
                // the held rows count Frontier's reads apart: the load tests subtract the native ones from cache loads
                assertThat(held.metric("outpost_rows_answers_total", java.util.regex.Pattern.compile("api=\"frontier\"")))
                        .isGreaterThanOrEqualTo(heldAnswers(held) - heldBefore);
                assertThat(held.metric("outpost_rows_answers_total", java.util.regex.Pattern.compile("api=\"native\"")))
                        .as("no native read in this test").isZero();
                assertThat(database.metric("outpost_frontier_answers_total",
                        java.util.regex.Pattern.compile("source=\"database\""))).isPositive();
            }
        }
    }

    private static final long MV_KEYS = 2_000;

    /**
     * The services' options. Each takes a table set's Last-Modified when first asked and keeps it for the whole test,
     * so that both give the same one whatever the timing (a kept time expiring between the two requests would differ).
     */
    private static String[] user(Backends backend) {
        String validate = "--outpost.frontier.contexts.Outpost.settings.ValidateLastModifiedSeconds=3600";
        return switch (backend) {
            case SQLITE -> new String[] {validate};
            case POSTGRESQL -> new String[] {validate, "--outpost.database.user=postgres"};
            case MARIADB -> new String[] {validate, "--outpost.database.user=root"};
        };
    }

    /**
     * The same for multi-version folders: HEAD writes that hide and split earlier rows (so the table holds hidden rows,
     * some at the same since as visible ones), user-tag writes (with and without the HEAD), standard tags made from the
     * HEAD, deleted and made again; statements over the HEAD, user tags and standard tags, and ids that are no tag of
     * the folder. Each request must be answered from held rows exactly when its layer is one of the folder's and
     * every column is held (the metric says so, request by request), and always with the database's bytes.
     */
    @ParameterizedTest
    @EnumSource(Backends.class)
    void multiVersionLayersAreTheDatabasesBytes(Backends backend) throws Exception {
        long seed = System.nanoTime();
        Random r = new Random(seed);
        DatabaseConfig cfg = backend.freshConfig("held_frontier_mv");
        try (IovStore loader = IovStore.open(cfg)) {
            List<Folder> folders = List.of(
                    new Folder(loader.createFolder("/HELDMV/a", Versioning.MULTI_VERSION, KeyType.TIME,
                            PayloadSpec.parse("s:String255,n:Int32,bl:Blob64k"), "", true), List.of("S", "N", "BL")),
                    new Folder(loader.createFolder("/HELDMV/b", Versioning.MULTI_VERSION, KeyType.RUN_LUMI,
                            PayloadSpec.parse("x:UInt63,v:Double"), "", true), List.of("X", "V")));
            for (Folder f : folders) {
                loader.createChannel(f.node(), CHANNELS + 5, "empty", "a channel without IOVs");
            }
            int[] tagged = {0};
            for (int i = 0; i < 6; i++) {
                writeMultiVersion(loader, folders, r, tagged);
            }
            assertThat(hiddenAtVisibleSince(loader, folders.get(0).node()))
                    .as("hidden rows at the since of a visible one of the same layer (seed %d)", seed).isPositive();
            // a standard tag whose objects a later HEAD write hides: their rows' NEW_HEAD_ID and LASTMOD_DATE change
            Node a = folders.get(0).node();
            loader.tagCurrentHead(a, "HELDMV_BEFORE_HIDING", "the HEAD before a write over it");
            for (int ch = 0; ch < 4; ch++) {
                loader.store(a, List.of(new NewIov(ch, 0, MV_KEYS, values(folders.get(0), r))));
            }
            assertThat(count(loader, "SELECT COUNT(*) FROM " + a.iov2TagTable() + " T, " + a.iovTable()
                    + " O WHERE O.OBJECT_ID = T.OBJECT_ID AND O.NEW_HEAD_ID <> 0"))
                    .as("tagged objects hidden in the HEAD since (seed %d)", seed).isPositive();
            try (RunningService held = RunningService.start(cfg.jdbcUrl(), user(backend));
                 RunningService database = RunningService.start(cfg.jdbcUrl(),
                         concat(user(backend), "--outpost.rows.enabled=false"))) {
                Compare compare = new Compare(held, database, seed, backend);
                int expectedHeld = 0;
                for (int i = 0; i < 200; i++) {
                    if (i % 20 == 19) {
                        writeMultiVersion(loader, folders, r, tagged); // between requests: both must see it
                    }
                    Folder f = folders.get(r.nextInt(folders.size()));
                    List<Tag> tags = loader.tags(f.node());
                    Layer layer = layer(r, tags);
                    String sql = statement(r, f, layer, MV_KEYS);
                    boolean fromHeldRows = isTagOf(layer, tags) && heldColumns(sql, layer);
                    compare.same(sql, fromHeldRows);
                    expectedHeld += fromHeldRows ? 1 : 0;
                }
                assertThat(expectedHeld).as("statements answered from held rows (seed %d)", seed).isGreaterThan(60);
                keptTagIsNeverStale(loader, folders.get(0), compare);
                // without a layer filter a multi-version table's hidden rows are read too: the database answers
                double before = heldAnswers(held);
                assertThat(body(held, FRONTIER + "BLOBzip5&p1=" + P1Codec.encode(statement(r, folders.get(0), Layer.SV,
                        MV_KEYS)))).asString(StandardCharsets.ISO_8859_1).contains("error=\"0\"");
                assertThat(heldAnswers(held)).as("no layer filter: not from held rows").isEqualTo(before);
                assertThat(heldAnswers(database)).as("the database service never answers from held rows").isZero();
            }
        }
    }

    /**
     * A standard tag kept by a tag relation keeps its id when deleted (emptied) and tagged again with other rows: each
     * state is answered from held rows and is the database's, never the tag's earlier rows.
     */
    private static void keptTagIsNeverStale(IovStore loader, Folder f, Compare compare) throws Exception {
        Node node = f.node();
        loader.createTagRelation(node, "HELDMV_PARENT", "HELDMV_KEPT");
        Tag kept = loader.tag("HELDMV_KEPT");
        long t = MV_KEYS + 10;
        // the same statement throughout: at-time at t, every channel, the payload from the objects
        String sql = atTime(f, Layer.standardTag(kept.id()), t);
        String empty = compare.same(sql, true);
        List<NewIov> first = new ArrayList<>();
        for (int ch = 0; ch < CHANNELS; ch++) {
            first.add(new NewIov(ch, t - 5, ValidityKey.MAX, "first", (int) ch, null));
        }
        loader.store(node, first);
        String stamp = loader.modificationStamp(node);
        loader.tagCurrentHead(node, "HELDMV_KEPT", "kept by a relation");
        assertThat(loader.tag("HELDMV_KEPT").id()).isEqualTo(kept.id());
        // what keeps held rows fresh: every tag change bumps the folder's stamp, though it writes no IOV row
        assertThat(loader.modificationStamp(node)).as("tagged").isNotEqualTo(stamp);
        stamp = loader.modificationStamp(node);
        String tagged = compare.same(sql, true);
        assertThat(tagged).as("the tag's rows").isNotEqualTo(empty).contains("first");
        assertThat(loader.deleteTag(node, "HELDMV_KEPT")).as("kept by its relation").isFalse();
        assertThat(loader.modificationStamp(node)).as("deleted").isNotEqualTo(stamp);
        assertThat(compare.same(sql, true)).as("deleted: empty again").isEqualTo(empty);
        List<NewIov> second = new ArrayList<>();
        for (int ch = 0; ch < CHANNELS; ch++) {
            second.add(new NewIov(ch, t - 2, t + 5, "second", (int) ch, null));
        }
        loader.store(node, second);
        loader.tagCurrentHead(node, "HELDMV_KEPT", "tagged again");
        assertThat(loader.tag("HELDMV_KEPT").id()).isEqualTo(kept.id());
        String again = compare.same(sql, true);
        assertThat(again).as("tagged again: the new rows, not the first").contains("second").doesNotContain("first");
        // a tag deleted for good: its id is no tag of the folder any more, and the database answers
        loader.tagCurrentHead(node, "HELDMV_GONE", "");
        String gone = atTime(f, Layer.standardTag(loader.tag("HELDMV_GONE").id()), t);
        assertThat(compare.same(gone, true)).contains("second");
        assertThat(loader.deleteTag(node, "HELDMV_GONE")).isTrue();
        assertThat(compare.same(gone, false)).isEqualTo(empty);
    }

    /** COOL's at-time read of {@code layer} over every channel at {@code t}, the payload from the objects for a tag. */
    private static String atTime(Folder f, Layer layer, long t) {
        boolean tag = layer.kind() == Layer.Kind.STANDARD_TAG;
        String m = tag ? "I4" : "I3";
        String x = tag ? f.node().iov2TagTable() : f.node().iovTable();
        String filter3 = String.join(" AND ", layerFilter(layer, "I3", false));
        String filter1 = String.join(" AND ", layerFilter(layer, "I1", false));
        return "SELECT " + m + ".CHANNEL_ID, " + m + ".IOV_SINCE, " + m + ".IOV_UNTIL, " + m + ".S, " + m + ".N FROM "
                + f.node().channelTable() + " C2, " + x + " I3" + (tag ? ", " + f.node().iovTable() + " I4" : "")
                + " WHERE " + filter3 + " AND I3.CHANNEL_ID = C2.CHANNEL_ID AND I3.IOV_SINCE >= COALESCE((SELECT "
                + "MAX(I1.IOV_SINCE) FROM " + x + " I1 WHERE " + filter1 + " AND I1.CHANNEL_ID = C2.CHANNEL_ID AND "
                + "I1.IOV_SINCE <= " + t + "), " + t + ") AND I3.IOV_SINCE <= " + t + " AND I3.IOV_UNTIL > " + t
                + (tag ? " AND I4.OBJECT_ID = I3.OBJECT_ID" : "") + " ORDER BY I3.CHANNEL_ID, I3.IOV_SINCE";
    }

    /** The same request to both services: the same bytes and caching headers, and held rows used as expected. */
    private record Compare(RunningService held, RunningService database, long seed, Backends backend) {
        String same(String sql, boolean fromHeldRows) throws Exception {
            String path = FRONTIER + "BLOBzip" + (sql.length() % 10) + "&p1=" + P1Codec.encode(sql);
            HttpResponse<byte[]> fromDatabase = response(database, path);
            double before = heldAnswers(held);
            HttpResponse<byte[]> fromHeld = response(held, path);
            assertThat(decoded(fromHeld.body())).as("rows of seed %d, %s: %s", seed, backend, sql)
                    .isEqualTo(decoded(fromDatabase.body()));
            String body = new String(fromHeld.body(), StandardCharsets.ISO_8859_1);
            assertThat(body).as("seed %d, %s: %s", seed, backend, sql)
                    .isEqualTo(new String(fromDatabase.body(), StandardCharsets.ISO_8859_1)).contains("error=\"0\"");
            for (String h : List.of("Last-Modified", "Cache-Control")) {
                assertThat(fromHeld.headers().firstValue(h)).as("%s of seed %d, %s: %s", h, seed, backend, sql)
                        .isEqualTo(fromDatabase.headers().firstValue(h));
            }
            assertThat(heldAnswers(held) - before).as("answered from held rows? seed %d, %s: %s", seed, backend, sql)
                    .isEqualTo(fromHeldRows ? 1.0 : 0.0);
            return decoded(fromHeld.body());
        }
    }

    /** A random layer of the folder: the HEAD, one of its tags, or now and then an id that is no tag of it. */
    private static Layer layer(Random r, List<Tag> tags) {
        List<Tag> user = tags.stream().filter(t -> t.kind() == TagKind.USER).toList();
        List<Tag> standard = tags.stream().filter(t -> t.kind() == TagKind.STANDARD).toList();
        int pick = r.nextInt(10);
        if (pick < 3 || pick < 6 && user.isEmpty() || pick < 9 && standard.isEmpty() && user.isEmpty()) {
            return Layer.HEAD;
        }
        if (pick == 9) {
            long other = tags.isEmpty() || r.nextBoolean() ? 9_999 : tags.get(r.nextInt(tags.size())).id();
            return r.nextBoolean() ? Layer.userTag(other) : Layer.standardTag(other);
        }
        if (pick < 6 || standard.isEmpty()) {
            return Layer.userTag(user.get(r.nextInt(user.size())).id());
        }
        return Layer.standardTag(standard.get(r.nextInt(standard.size())).id());
    }

    private static long count(IovStore store, String sql) {
        return store.read(c -> {
            try (var ps = c.prepareStatement(sql); var rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        });
    }

    /**
     * COOL's truncateObjectValidity in one random channel, a little before the next batch: the open IOV there ends
     * (its row changed in place, with no new object); refused when the IOV there is closed.
     */
    private static void truncate(IovStore store, Folder f, Random r, long[] nextSince) {
        int ch = r.nextInt(CHANNELS);
        try {
            store.truncateValidity(f.node(), nextSince[ch] - 1 - r.nextInt(10), ChannelSelection.channel(ch));
        } catch (StoreException e) {
            // the IOV valid there is closed (or none is): nothing changed
        }
    }

    /** Rows hidden by a later write that share layer, channel and since with a visible row (a split's left part). */
    private static long hiddenAtVisibleSince(IovStore store, Node folder) {
        return store.read(c -> {
            try (var ps = c.prepareStatement("SELECT COUNT(*) FROM " + folder.iovTable() + " H, " + folder.iovTable()
                    + " V WHERE H.NEW_HEAD_ID <> 0 AND V.NEW_HEAD_ID = 0 AND H.USER_TAG_ID = V.USER_TAG_ID"
                    + " AND H.CHANNEL_ID = V.CHANNEL_ID AND H.IOV_SINCE = V.IOV_SINCE"); var rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        });
    }

    /** Whether the layer is the HEAD or a tag of the folder of the layer's kind (else the database answers). */
    private static boolean isTagOf(Layer layer, List<Tag> tags) {
        if (layer.equals(Layer.HEAD)) {
            return true;
        }
        TagKind kind = layer.kind() == Layer.Kind.USER_TAG ? TagKind.USER : TagKind.STANDARD;
        return tags.stream().anyMatch(t -> t.id() == layer.id() && t.kind() == kind);
    }

    /** No column the held rows leave to the database: V, a Double; a standard tag's own SYS_INSTIME (on I3). */
    private static boolean heldColumns(String sql, Layer layer) {
        String select = sql.substring(0, sql.indexOf(" FROM "));
        return !select.matches("(?s).*\\.\"?V\"?(,.*|$)") && !(layer.kind() == Layer.Kind.STANDARD_TAG
                && select.matches("(?s).*\"?I3\"?\\.\"?SYS_INSTIME.*"));
    }

    /**
     * Multi-version writes: into the HEAD over earlier IOVs (hiding and splitting them), into a user tag of the folder
     * as well or alone; now and then the HEAD tagged as a new standard tag, or a tag deleted.
     */
    private static void writeMultiVersion(IovStore store, List<Folder> folders, Random r, int[] tagged) {
        for (Folder f : folders) {
            for (int k = 0; k < 6; k++) {
                long ch = r.nextInt(CHANNELS);
                long since = r.nextLong(MV_KEYS);
                long until = r.nextInt(4) == 0 ? ValidityKey.MAX : since + 1 + r.nextInt(400);
                NewIov iov = new NewIov(ch, since, until, values(f, r));
                if (r.nextInt(3) == 0) {
                    iov = iov.withUserTag(f.node().name().toUpperCase(Locale.ROOT) + "_USER" + r.nextInt(2),
                            r.nextBoolean());
                }
                store.store(f.node(), List.of(iov));
            }
            if (r.nextInt(3) == 0) {
                store.tagCurrentHead(f.node(), "HELDMV_" + f.node().name().toUpperCase(Locale.ROOT) + "_" + tagged[0]++,
                        "the HEAD now");
            }
            List<Tag> standard = store.tags(f.node()).stream().filter(t -> t.kind() == TagKind.STANDARD).toList();
            if (standard.size() > 2 && r.nextInt(3) == 0) {
                store.deleteTag(f.node(), standard.get(r.nextInt(standard.size())).name());
            }
        }
    }

    /** An answer's rows, each its values' text, decoded. */
    private static String decoded(byte[] body) {
        return FrontierDecoder.decode(body).only().data().toString();
    }

    /** A batch of IOVs in random channels of every folder: open-ended ones, closed ones with gaps, NULLs. */
    private static void write(IovStore store, List<Folder> folders, Random r, long[] nextSince) {
        for (Folder f : folders) {
            List<NewIov> batch = new ArrayList<>();
            for (int ch = 0; ch < CHANNELS; ch++) {
                if (r.nextInt(3) == 0) {
                    continue;
                }
                long since = nextSince[ch] + r.nextInt(50);
                long until = r.nextInt(3) == 0 ? since + 1 + r.nextInt(30) : ValidityKey.MAX;
                batch.add(new NewIov(ch, since, until, values(f, r)));
            }
            try {
                store.store(f.node(), batch);
                if (!batch.isEmpty() && r.nextBoolean()) {
                    // again at the since of an IOV just stored: COOL's single-version rules decide what stays
                    NewIov again = batch.get(r.nextInt(batch.size()));
                    store.store(f.node(), List.of(new NewIov(again.channelId(), again.since(),
                            r.nextBoolean() ? ValidityKey.MAX : again.since() + 1 + r.nextInt(40), values(f, r))));
                }
            } catch (StoreException e) {
                // a random batch COOL would refuse (e.g. before an existing IOV): nothing stored, nothing to compare
            }
        }
        for (int ch = 0; ch < CHANNELS; ch++) {
            nextSince[ch] += 60;
        }
    }

    private static Object[] values(Folder f, Random r) {
        return switch (f.payloadColumns().size()) {
            case 7 -> new Object[] {r.nextInt(5) == 0 ? null : "s" + r.nextInt(1000) + (r.nextBoolean() ? " é<&>" : ""),
                r.nextInt(), r.nextBoolean(), r.nextInt(6) == 0 ? null : bytes(r), r.nextLong(), (short) r.nextInt(256),
                r.nextInt(4) == 0 ? "" : "text " + r.nextInt()};
            case 2 -> new Object[] {r.nextLong(Long.MAX_VALUE), r.nextDouble() * 1e10};
            case 3 -> new Object[] {r.nextInt(5) == 0 ? null : "mv" + r.nextInt(100), r.nextInt(),
                r.nextInt(4) == 0 ? null : bytes(r)};
            default -> throw new IllegalArgumentException(f.payloadColumns().toString());
        };
    }

    private static byte[] bytes(Random r) {
        byte[] b = new byte[r.nextInt(20)];
        r.nextBytes(b);
        return b;
    }

    /**
     * One of COOL's reads of the folder's {@code layer} at a random key below {@code keys}, with random columns,
     * channels, quoting and hints: a standard tag's rows from its tag table, mostly with the objects joined for the
     * payload (COOL selects the interval from either), a user tag's or the HEAD's with the layer filter in the main
     * block and the probe, sometimes selecting the filters' constant columns or a column no layer holds.
     */
    private static String statement(Random r, Folder f, Layer layer, long keys) {
        boolean quoted = r.nextBoolean();
        boolean tagTable = layer.kind() == Layer.Kind.STANDARD_TAG;
        boolean objects = tagTable && r.nextInt(5) != 0;
        String table = name(tagTable ? f.node().iov2TagTable() : f.node().iovTable(), quoted);
        String chans = name(f.node().channelTable(), quoted);
        String i3 = name("I3", quoted);
        String i4 = name("I4", quoted);
        String c2 = name("C2", quoted);
        String i1 = name("I1", quoted);
        long t = r.nextLong(keys);
        List<String> columns = columns(r, f, layer, objects, quoted);
        if (r.nextInt(4) == 0) {
            Collections.shuffle(columns, r);
        }
        boolean joinChannels = r.nextInt(3) != 0;
        StringBuilder sql = new StringBuilder("SELECT ");
        if (r.nextBoolean()) {
            sql.append("/*+ QB_NAME(MAIN) INDEX(@MAIN I3@MAIN (CHANNEL_ID IOV_SINCE IOV_UNTIL)) */ ");
        }
        sql.append(String.join(", ", columns)).append(" FROM ");
        sql.append(joinChannels ? chans + " " + c2 + ", " + table + " " + i3 : table + " " + i3);
        if (objects) {
            sql.append(", ").append(name(f.node().iovTable(), quoted)).append(' ').append(i4);
        }
        String outer = joinChannels ? c2 : i3;
        List<String> where = new ArrayList<>();
        if (joinChannels) {
            where.add(i3 + "." + name("CHANNEL_ID", quoted) + " = " + c2 + "." + name("CHANNEL_ID", quoted));
        }
        if (objects) {
            where.add(i4 + "." + name("OBJECT_ID", quoted) + " = " + i3 + "." + name("OBJECT_ID", quoted));
        }
        where.addAll(layerFilter(layer, i3, quoted));
        List<String> probe = new ArrayList<>(layerFilter(layer, i1, quoted));
        probe.add(i1 + "." + name("CHANNEL_ID", quoted) + " = " + outer + "." + name("CHANNEL_ID", quoted));
        probe.add(i1 + "." + name("IOV_SINCE", quoted) + " <= " + t);
        Collections.shuffle(probe, r);
        where.add(i3 + "." + name("IOV_SINCE", quoted) + " >= COALESCE((SELECT /*+ QB_NAME(MAX1) */ MAX(" + i1 + "."
                + name("IOV_SINCE", quoted) + ") FROM " + table + " " + i1 + " WHERE " + String.join(" AND ", probe)
                + "), " + t + ")");
        switch (r.nextInt(3)) {
            case 0, 1 -> { // at-time
                where.add(i3 + "." + name("IOV_SINCE", quoted) + " <= " + t);
                where.add(i3 + "." + name("IOV_UNTIL", quoted) + " > " + t);
            }
            default -> { // browse from t to t2
                long t2 = t + r.nextInt(200);
                where.add(i3 + "." + name("IOV_SINCE", quoted) + " <= " + t2);
                if (r.nextBoolean()) {
                    where.add(i3 + "." + name("IOV_UNTIL", quoted) + " > " + t);
                }
            }
        }
        String channel = (r.nextBoolean() ? outer : i3) + "." + name("CHANNEL_ID", quoted);
        int lo = r.nextInt(CHANNELS);
        switch (r.nextInt(5)) {
            case 0 -> where.add(channel + " = " + lo);
            case 1 -> where.add(channel + " BETWEEN " + lo + " AND " + (lo + r.nextInt(5)));
            case 2 -> {
                where.add(channel + " >= " + lo);
                where.add(channel + " <= " + (lo + r.nextInt(8)));
            }
            default -> {
            }
        }
        Collections.shuffle(where, r);
        sql.append(" WHERE ").append(String.join(" AND ", where));
        sql.append(" ORDER BY ").append(i3).append('.').append(name("CHANNEL_ID", quoted)).append(", ").append(i3)
                .append('.').append(name("IOV_SINCE", quoted));
        return sql.toString();
    }

    /** COOL's IOV row, in COOL's order (RelationalObjectTable's select list before the payload). */
    private static final List<String> IOV_ROW = List.of("OBJECT_ID", "CHANNEL_ID", "IOV_SINCE", "IOV_UNTIL",
            "USER_TAG_ID", "SYS_INSTIME", "LASTMOD_DATE", "ORIGINAL_ID", "NEW_HEAD_ID");
    /** The columns of a standard tag's tag table. */
    private static final List<String> TAG_ROW = List.of("TAG_ID", "OBJECT_ID", "CHANNEL_ID", "IOV_SINCE",
            "IOV_UNTIL", "SYS_INSTIME");

    /**
     * The selected columns: often COOL's own list (the whole IOV row, then every payload column, from the objects for
     * a standard tag), else a random choice of the row's and the payload's columns; a standard tag's interval, id and
     * object id now and then from its tag table.
     */
    private static List<String> columns(Random r, Folder f, Layer layer, boolean objects, boolean quoted) {
        boolean tagTable = layer.kind() == Layer.Kind.STANDARD_TAG;
        String i3 = name("I3", quoted);
        String m = name(objects ? "I4" : "I3", quoted);
        List<String> row = tagTable && !objects ? TAG_ROW : IOV_ROW;
        List<String> payload = tagTable && !objects ? List.of() : f.payloadColumns();
        List<String> columns = new ArrayList<>();
        if (r.nextInt(3) == 0) {
            for (String c : row) {
                columns.add(m + "." + name(c, quoted));
            }
            for (String c : payload) {
                columns.add(m + "." + name(c, quoted));
            }
            return columns;
        }
        for (String c : row) {
            if (r.nextInt(3) != 0 || c.equals("CHANNEL_ID")) {
                boolean fromTag = tagTable && objects && TAG_ROW.contains(c) && r.nextInt(3) == 0;
                columns.add((fromTag ? i3 : m) + "." + name(c, quoted));
            }
        }
        if (tagTable && objects && r.nextInt(6) == 0) {
            columns.add(i3 + "." + name("TAG_ID", quoted));
        }
        List<String> chosen = new ArrayList<>(payload);
        Collections.shuffle(chosen, r);
        for (String c : chosen.subList(0, r.nextInt(chosen.size() + 1))) {
            columns.add(m + "." + name(c, quoted));
        }
        return columns;
    }

    /** COOL's layer filter on {@code alias}: none, the user tag's (the HEAD's is user tag 0) or the standard tag's. */
    private static List<String> layerFilter(Layer layer, String alias, boolean quoted) {
        return switch (layer.kind()) {
            case SINGLE_VERSION -> List.of();
            case USER_TAG -> List.of(alias + "." + name("USER_TAG_ID", quoted) + " = " + layer.id(),
                    alias + "." + name("NEW_HEAD_ID", quoted) + " = 0");
            case STANDARD_TAG -> List.of(alias + "." + name("TAG_ID", quoted) + " = " + layer.id());
        };
    }

    private static String name(String id, boolean quoted) {
        String upper = id.toUpperCase(Locale.ROOT);
        return quoted ? "\"" + upper + "\"" : upper;
    }

    private static byte[] body(RunningService svc, String path) throws Exception {
        return response(svc, path).body();
    }

    private static HttpResponse<byte[]> response(RunningService svc, String path) throws Exception {
        HttpResponse<byte[]> resp = svc.get(path, "X-Frontier-Id", "outpost-test 1.0");
        assertThat(resp.statusCode()).as(path).isEqualTo(200);
        return resp;
    }

    private static double heldAnswers(RunningService svc) throws Exception {
        return svc.metric("outpost_frontier_answers_total", java.util.regex.Pattern.compile("source=\"held\""));
    }

    private static String[] concat(String[] a, String... b) {
        String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
