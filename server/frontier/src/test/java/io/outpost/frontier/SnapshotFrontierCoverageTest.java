package io.outpost.frontier;

import static io.outpost.store.export.SnapshotTestSupport.GT;
import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.frontier.protocol.FrontierConfig;
import io.outpost.store.IovStore;
import io.outpost.store.db.BrowseSpec;
import io.outpost.store.db.DatabaseConfig;
import io.outpost.store.db.Layer;
import io.outpost.store.db.OracleDialect;
import io.outpost.store.db.Sql;
import io.outpost.store.export.SnapshotExporter;
import io.outpost.store.export.SnapshotTestSupport.Backend;
import io.outpost.store.export.SnapshotTestSupport;
import io.outpost.store.model.ChannelSelection;
import io.outpost.store.model.Node;
import io.outpost.store.read.IovReader;
import io.outpost.testkit.FrontierDecoder;
import io.outpost.testkit.RawHttp;
import io.outpost.testkit.TempDirs;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The Frontier endpoint on an offline snapshot, over real HTTP, against the Frontier endpoint on its source: for
 * random histories and ranges, COOL's own browse, count and at-time SQL (Oracle form, hints and all, values inlined
 * as CORAL sends them, or as ? binds) gives the same decoded rows inside the range; outside it, without key
 * bounds, in a layer the snapshot does not hold, or for a folder it does not hold, the snapshot answers a
 * payload error saying it does not cover the query, cached as briefly as other errors.
 */
class SnapshotFrontierCoverageTest {
    private static final OracleDialect COOL = new OracleDialect();
    /** Errors are cached for ttl=short's 60 s, answers for the default long time. */
    private static final FrontierConfig SNAP_CONFIG = FrontierConfig.defaults("Snap").withShort(60L, null);

    static Stream<Arguments> cases() {
        return Stream.of(Arguments.of(Backend.SQLITE, 11L, "/**"), Arguments.of(Backend.SQLITE, 12L, "/A/B/*"),
                Arguments.of(Backend.POSTGRESQL, 13L, "/**"));
    }

    @ParameterizedTest(name = "{0} source, seed {1}, folders {2}")
    @MethodSource("cases")
    void insideTheRangeAnswersLikeTheSourceOutsideItRefuses(Backend backend, long seed, String glob) throws Exception {
        Random rnd = new Random(seed);
        int[] counter = new int[2];
        Path dir = TempDirs.create("snapshot-frontier");
        try {
            // the snapshot on the source's engine: the wire types of the two answers are then the same
            DatabaseConfig snapConfig = SnapshotTestSupport.config(backend, dir, "fsnap" + seed);
            long k1 = 5 + rnd.nextInt(40);
            long k2 = k1 + 10 + rnd.nextInt(60);
            try (IovStore source = IovStore.open(SnapshotTestSupport.config(backend, dir, "fsrc" + seed))) {
                SnapshotTestSupport.createTree(source);
                SnapshotTestSupport.randomWrites(source, rnd, 40, counter);
                SnapshotTestSupport.createGlobalTag(source, rnd, counter);
                SnapshotTestSupport.randomWrites(source, rnd, 20, counter);
                try (IovStore out = IovStore.open(snapConfig)) {
                    new SnapshotExporter(source, out).export(new SnapshotExporter.Request(GT, k1, k2, glob),
                            SnapshotExporter.Progress.NONE);
                }
                try (IovStore snap = IovStore.open(snapConfig);
                     TestServer server = new TestServer(
                             new FrontierServlet(new FrontierContext("Source", source.database())),
                             new FrontierServlet(new FrontierContext("Snap", snap.database(), SNAP_CONFIG)))) {
                    Compare cmp = new Compare(server);
                    for (String path : List.of("/A/B/mv1", "/A/mv2", "/A/B/mv3", "/A/sv")) {
                        Node f = source.folder(path);
                        String tag = path.equals("/A/B/mv1") || path.equals("/A/mv2") ? GT : "HEAD";
                        Layer layer = source.layer(f, tag);
                        boolean held = path.startsWith("/A/B/") || glob.equals("/**");
                        if (!held) {
                            cmp.refused(browse(f, layer, k1, k2, ChannelSelection.all(), false), "does not hold");
                            continue;
                        }
                        for (int q = 0; q < 12; q++) {
                            long t1 = k1 + rnd.nextInt((int) (k2 - k1 + 1));
                            long t2 = rnd.nextInt(4) == 0 ? t1 : Math.min(k2, t1 + rnd.nextInt(30));
                            ChannelSelection sel = SnapshotTestSupport.randomSelection(rnd);
                            cmp.same(browse(f, layer, t1, t2, sel, false), rnd.nextBoolean());
                            cmp.same(browse(f, layer, t1, t2, sel, true), rnd.nextBoolean());
                        }
                        cmp.refused(browse(f, layer, k1 - 1, k2, ChannelSelection.all(), false), "covers keys");
                        cmp.refused(browse(f, layer, k1, k2 + 1, ChannelSelection.all(), true), "covers keys");
                        cmp.refused(browse(f, layer, k2 + 5, k2 + 5, ChannelSelection.channel(1), false), "covers keys");
                        cmp.refused(new Sql().append("SELECT COUNT(*) FROM " + layerTable(f, layer)), "without a lower key bound");
                        if (f.isMultiVersion() && layer.id() != 0) {
                            // the HEAD of a folder held in a tag: its rows were not copied
                            cmp.refused(browse(f, Layer.HEAD, k1, k2, ChannelSelection.all(), false), "only, not its HEAD");
                        }
                        if (f.isMultiVersion()) {
                            // every row of the range, hidden ones and other layers too: the snapshot holds one layer
                            cmp.refused(new Sql().append("SELECT COUNT(*) FROM " + layerTable(f, layer)
                                    + " WHERE IOV_SINCE <= " + k2 + " AND IOV_UNTIL > " + k1), "only");
                        }
                    }
                    assertThat(cmp.rows).as("rows compared").isGreaterThan(20);
                }
            }
        } finally {
            TempDirs.deleteQuietly(dir);
        }
    }

    private static String layerTable(Node f, Layer layer) {
        return layer.kind() == Layer.Kind.STANDARD_TAG ? f.iov2TagTable() : f.iovTable();
    }

    /** COOL's generic browse (or its count) for the layer, exactly as COOL writes it for Oracle. */
    private static Sql browse(Node f, Layer layer, long t1, long t2, ChannelSelection sel, boolean count) {
        BrowseSpec spec = IovReader.spec(f, layer, t1, t2, sel);
        return COOL.browse(new BrowseSpec(f, layer, t1, t2, spec.channels(), false, true), count);
    }

    /** Sends the same query to both contexts and compares the decoded answers. */
    private static final class Compare {
        private final TestServer server;
        long rows;

        Compare(TestServer server) {
            this.server = server;
        }

        void same(Sql sql, boolean asBinds) throws Exception {
            String text = asBinds ? withBinds(sql) : inlined(sql);
            FrontierDecoder.Payload expected = get("Source", text, null);
            FrontierDecoder.Payload actual = get("Snap", text, null);
            assertThat(expected.error()).as(expected.message() + ": " + text).isFalse();
            assertThat(actual.error()).as(actual.message() + ": " + text).isFalse();
            assertThat(actual.rows()).as(text).isEqualTo(expected.rows());
            rows += expected.rows().size() - 1;
        }

        void refused(Sql sql, String why) throws Exception {
            String text = inlined(sql);
            RawHttp[] http = new RawHttp[1];
            FrontierDecoder.Payload p = get("Snap", text, http);
            assertThat(p.error()).as(text).isTrue();
            assertThat(p.message()).as(text).contains("Not covered by this offline snapshot").contains(why);
            assertThat(http[0].header("Cache-Control")).isEqualTo("max-age=60"
                    + ", stale-if-error=1");
            assertThat(http[0].header("Last-Modified")).isEqualTo("Thu, 01 Jan 1970 00:00:00 GMT");
            assertThat(get("Source", text, null).error()).as("the source answers " + text).isFalse();
        }

        private FrontierDecoder.Payload get(String context, String sql, RawHttp[] keep) throws Exception {
            String target = FrontierRequests.path(context, "BLOBzip5", Map.of(), sql);
            try (RawHttp r = RawHttp.send(server.port(), target, "HTTP/1.0", FrontierRequests.clientHeaders())) {
                if (keep != null) {
                    keep[0] = r;
                }
                assertThat(r.status).isEqualTo(200);
                return FrontierDecoder.decode(r.body()).only();
            }
        }
    }

    /** The values written into the SQL, as CORAL substitutes binds before sending. */
    private static String inlined(Sql sql) {
        StringBuilder b = new StringBuilder();
        String text = sql.text();
        int bind = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '?') {
                b.append(literal(sql.binds().get(bind++)));
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    /** Frontier's bind form: {@code sql:value1:value2...}. */
    private static String withBinds(Sql sql) {
        List<String> values = new ArrayList<>();
        for (Object v : sql.binds()) {
            values.add(String.valueOf(v));
        }
        return values.isEmpty() ? sql.text() : sql.text() + ":" + String.join(":", values);
    }

    private static String literal(Object v) {
        return v instanceof String s ? "'" + s.replace("'", "''") + "'" : String.valueOf(v);
    }
}
