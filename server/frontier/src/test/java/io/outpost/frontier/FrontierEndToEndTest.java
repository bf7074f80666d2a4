package io.outpost.frontier;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.frontier.protocol.FrontierConfig;
import io.outpost.store.IovStore;
import io.outpost.store.db.Database;
import io.outpost.store.db.DatabaseConfig;
import io.outpost.store.model.KeyType;
import io.outpost.store.model.NewIov;
import io.outpost.store.model.Node;
import io.outpost.store.model.PayloadSpec;
import io.outpost.store.model.ValidityKey;
import io.outpost.store.model.Versioning;
import io.outpost.store.testing.Backends;
import io.outpost.testkit.FrontierDecoder;
import io.outpost.testkit.RawHttp;
import java.io.ByteArrayOutputStream;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Real HTTP against embedded Tomcat, on SQLite and a real PostgreSQL and MariaDB, each response checked by FrontierDecoder. */
class FrontierEndToEndTest {

    /** One store and four contexts on it: default, short-TTL, small-buffer, and a one-connection slow pool. */
    record Fixture(IovStore store, Node folder, Database slowDb, TestServer server) {
        String iovs() {
            return folder.iovTable();
        }
    }

    private static final Map<Backends, Fixture> FIXTURES = new EnumMap<>(Backends.class);

    static synchronized Fixture fixture(Backends b) throws Exception {
        Fixture f = FIXTURES.get(b);
        if (f != null) {
            return f;
        }
        DatabaseConfig cfg = b.freshConfig("frontier_e2e");
        IovStore store = IovStore.open(cfg.withPools(4, 1));
        Node folder = store.createFolder("/A/sv", Versioning.SINGLE_VERSION, KeyType.TIME,
                PayloadSpec.parse("x:Int32,s:String255"), "test", true);
        store.store(folder, List.of(new NewIov(1, 10, ValidityKey.MAX, 1, "a"), new NewIov(2, 10, ValidityKey.MAX, 2, null),
                new NewIov(1, 20, ValidityKey.MAX, 3, "c<&>\"'")));
        Database slow = Database.open(cfg.withPools(1, 1).withTimeouts(Duration.ofMillis(300), Duration.ofSeconds(30)));
        FrontierConfig base = FrontierConfig.defaults("Outpost");
        FrontierServlet main = new FrontierServlet(new FrontierContext("Outpost", store.database(), base));
        FrontierServlet shortTtl = new FrontierServlet(new FrontierContext("Short", store.database(),
                FrontierConfig.defaults("Short").withShort(60L, null).withLong(3600L, null)));
        FrontierServlet small = new FrontierServlet(new FrontierContext("Small", store.database(),
                base.withResponseBuffer(256)));
        FrontierServlet slowServlet = new FrontierServlet(new FrontierContext("Slow", slow,
                FrontierConfig.defaults("Slow").withLimits(Duration.ofMillis(100), 2, 10, 1)));
        f = new Fixture(store, folder, slow, new TestServer(main, shortTtl, small, slowServlet));
        FIXTURES.put(b, f);
        return f;
    }

    @AfterAll
    static void closeAll() throws Exception {
        for (Fixture f : FIXTURES.values()) {
            f.server().close();
            f.slowDb().close();
            f.store().close();
        }
        FIXTURES.clear();
    }

    private static Map<String, String> headers() {
        return FrontierRequests.clientHeaders();
    }

    private static String path(String ctx, String enc, String... sql) {
        return FrontierRequests.path(ctx, enc, Map.of(), sql);
    }

    private static FrontierDecoder.Response get(Fixture f, String target, Map<String, String> h, RawHttp[] keep) throws Exception {
        try (RawHttp r = RawHttp.send(f.server().port(), target, "HTTP/1.0", h)) {
            if (keep != null) {
                keep[0] = r;
            }
            assertThat(r.status).isEqualTo(200);
            assertThat(r.header("Transfer-Encoding")).isNull();
            assertThat(r.header("Content-Type")).isEqualTo("text/xml;charset=US-ASCII");
            byte[] body = r.body();
            if (r.header("Content-Length") != null) {
                assertThat(body).hasSize(Integer.parseInt(r.header("Content-Length")));
            }
            return FrontierDecoder.decode(body);
        }
    }

    @ParameterizedTest
    @EnumSource(Backends.class)
    void coolStyleQueryPathFormBlobZip5(Backends b) throws Exception {
        Fixture f = fixture(b);
        String sql = "SELECT /*+ QB_NAME(MAIN) INDEX(@MAIN I3@MAIN (CHANNEL_ID IOV_SINCE IOV_UNTIL)) */ \"I3\".\"CHANNEL_ID\", "
                + "\"I3\".\"IOV_SINCE\", NVL(\"I3\".\"S\", 'none') AS \"S\" FROM \"" + f.iovs() + "\" \"I3\" "
                + "WHERE \"I3\".\"IOV_SINCE\" >= COALESCE((SELECT /*+ QB_NAME(MAX1) */ MAX(\"I1\".\"IOV_SINCE\") FROM "
                + f.iovs() + " \"I1\" WHERE \"I1\".\"CHANNEL_ID\" = \"I3\".\"CHANNEL_ID\" AND \"I1\".\"IOV_SINCE\" <= 0), 0) "
                + "ORDER BY \"I3\".\"CHANNEL_ID\", \"I3\".\"IOV_SINCE\"\n";
        RawHttp[] r = new RawHttp[1];
        FrontierDecoder.Payload p = get(f, path("Outpost", "BLOBzip5", sql), headers(), r).only();
        assertThat(p.error()).isFalse();
        assertThat(p.encoding()).isEqualTo("BLOBzip5");
        assertThat(p.columns()).containsExactly("CHANNEL_ID", "IOV_SINCE", "S");
        assertThat(p.types().get(0)).startsWith("NUMBER");
        assertThat(p.data()).containsExactly(List.of("1", "10", "a"), List.of("1", "20", "c<&>\"'"), List.of("2", "10", "none"));
        assertThat(r[0].header("Cache-Control")).isEqualTo("max-age=604800, stale-if-error=1");
        assertThat(r[0].header("Last-Modified")).endsWith(" GMT").isNotEqualTo("Thu, 01 Jan 1970 00:00:00 GMT");
        assertThat(r[0].header("Content-Length")).isNotNull();
    }

    @ParameterizedTest
    @EnumSource(Backends.class)
    void legacyQuestionMarkFormSeveralPayloadsAndNulls(Backends b) throws Exception {
        Fixture f = fixture(b);
        String target = path("Outpost", "BLOB", "select 1 from dual",
                "SELECT CHANNEL_ID, S FROM " + f.iovs() + " WHERE CHANNEL_ID = 2",
                "SELECT IOV_SINCE FROM " + f.iovs() + " WHERE CHANNEL_ID = ? AND IOV_SINCE > ?:1:15")
                .replace("/Frontier/", "/Frontier?");
        FrontierDecoder.Response resp = get(f, target, headers(), null);
        assertThat(resp.declaredPayloads()).isEqualTo(3);
        assertThat(resp.payloads()).hasSize(3).allSatisfy(p -> assertThat(p.error()).isFalse());
        assertThat(resp.payloads().get(0).data()).containsExactly(List.of("1"));
        assertThat(resp.payloads().get(1).data()).containsExactly(java.util.Arrays.asList("2", null));
        assertThat(resp.payloads().get(2).data()).containsExactly(List.of("20"));
        assertThat(resp.globalError()).isNull();
    }

    @ParameterizedTest
    @EnumSource(Backends.class)
    void errorsArePayloadOrGlobalAsUpstream(Backends b) throws Exception {
        Fixture f = fixture(b);
        // rejected SQL: payload error, short age, Last-Modified at the epoch
        try (RawHttp r = RawHttp.send(f.server().port(), path("Outpost", "BLOBzip5", "delete from " + f.iovs()), "HTTP/1.0", headers())) {
            FrontierDecoder.Response resp = FrontierDecoder.decode(r.body());
            assertThat(resp.only().error()).isTrue();
            assertThat(resp.only().message()).isEqualTo("Outpost SQL rejected: only SELECT is allowed, not DELETE");
            assertThat(resp.only().md5()).isNull();
            assertThat(resp.globalError()).isNull();
            assertThat(r.header("Cache-Control")).isEqualTo("max-age=0, stale-if-error=1");
            assertThat(r.header("Last-Modified")).isEqualTo("Thu, 01 Jan 1970 00:00:00 GMT");
        }
        // database error: payload error with the md5 of what was sent
        FrontierDecoder.Payload p = get(f, path("Outpost", "BLOBzip", "select NO_SUCH_COLUMN from " + f.iovs()), headers(), null).only();
        assertThat(p.error()).isTrue();
        assertThat(p.message()).startsWith("Outpost While querying [" + f.iovs() + "]: ");
        assertThat(p.md5()).hasSize(32);
        // empty result with ttl=forever is an error
        p = get(f, FrontierRequests.path("Outpost", "BLOBzip5", Map.of("ttl", "forever"),
                "select CHANNEL_ID from " + f.iovs() + " where CHANNEL_ID = 99"), headers(), null).only();
        assertThat(p.message()).isEqualTo("Outpost Empty result from query not allowed");
        // bad zip level: payload error without md5
        p = get(f, path("Outpost", "BLOBzip12", "select 1 from dual"), headers(), null).only();
        assertThat(p.message()).isEqualTo("Outpost Invalid zip level: 12");
        // an error stops the remaining payloads, as upstream
        FrontierDecoder.Response two = get(f, path("Outpost", "BLOB", "select x from users", "select 1 from dual"), headers(), null);
        assertThat(two.declaredPayloads()).isEqualTo(2);
        assertThat(two.payloads()).hasSize(1);
        // missing X-Frontier-Id: global error right after <frontier>; not stored (upstream: 300 s), as the same URL
        // with the header is a real job's request
        try (RawHttp r = RawHttp.send(f.server().port(), path("Outpost", "BLOBzip5", "select 1 from dual"), "HTTP/1.0",
                Map.of("Cache-Control", "max-stale=1"))) {
            FrontierDecoder.Response resp = FrontierDecoder.decode(r.body());
            assertThat(resp.declaredPayloads()).isEqualTo(-1);
            assertThat(resp.globalError()).isEqualTo("Outpost Error: X-frontier-id header missing");
            assertThat(r.header("Cache-Control")).isEqualTo("no-store");
        }
        // a database failure names this request's log id: not stored either; a refused statement keeps the error age
        try (RawHttp r = RawHttp.send(f.server().port(), path("Outpost", "BLOBzip5", "select NO_SUCH_COLUMN from "
                + f.iovs()), "HTTP/1.0", headers())) {
            assertThat(FrontierDecoder.decode(r.body()).only().message()).contains("logged it as id=");
            assertThat(r.header("Cache-Control")).isEqualTo("no-store");
        }
        try (RawHttp r = RawHttp.send(f.server().port(), path("Outpost", "BLOBzip5", "select x from users"), "HTTP/1.0",
                headers())) {
            assertThat(FrontierDecoder.decode(r.body()).only().message()).contains("SQL rejected");
            assertThat(r.header("Cache-Control")).startsWith("max-age="); // the context's error max-age
        }
        // bad command order and unknown objects are global errors
        assertThat(get(f, "/Outpost/Frontier/encoding=BLOB&type=frontier_request:1", headers(), null).globalError())
                .isEqualTo("Outpost Error: Unsupported request type [encoding]");
        assertThat(get(f, "/Outpost/Frontier/type=frontier_file:1&encoding=BLOB&p1=x", headers(), null).globalError())
                .isEqualTo("Outpost Error: Unsupported command: frontier_file");
    }

    @ParameterizedTest
    @EnumSource(Backends.class)
    void ttlClassesAndIfModifiedSince(Backends b) throws Exception {
        Fixture f = fixture(b);
        String q = "select CHANNEL_ID, IOV_SINCE from " + f.iovs();
        Map<String, String> noStale = Map.of("X-Frontier-Id", "test");
        try (RawHttp r = RawHttp.send(f.server().port(), FrontierRequests.path("Outpost", "BLOB", Map.of("ttl", "short"), q), "HTTP/1.0", noStale)) {
            assertThat(r.header("Cache-Control")).isEqualTo("max-age=0");
        }
        try (RawHttp r = RawHttp.send(f.server().port(), FrontierRequests.path("Outpost", "BLOB", Map.of("ttl", "forever"), q), "HTTP/1.0", noStale)) {
            assertThat(r.header("Cache-Control")).isEqualTo("max-age=31536000");
        }
        try (RawHttp r = RawHttp.send(f.server().port(), FrontierRequests.path("Short", "BLOB", Map.of("ttl", "short"), q), "HTTP/1.0", noStale)) {
            assertThat(r.header("Cache-Control")).isEqualTo("max-age=60");
        }
        String lm;
        try (RawHttp r = RawHttp.send(f.server().port(), path("Short", "BLOB", q), "HTTP/1.0", headers())) {
            assertThat(r.header("Cache-Control")).isEqualTo("max-age=3600, stale-if-error=1");
            lm = r.header("Last-Modified");
            assertThat(lm).isNotNull();
        }
        Map<String, String> ims = new LinkedHashMap<>(headers());
        ims.put("If-Modified-Since", lm);
        try (RawHttp r = RawHttp.send(f.server().port(), path("Short", "BLOB", q), "HTTP/1.0", ims)) {
            assertThat(r.status).isEqualTo(304);
            assertThat(r.header("Cache-Control")).isEqualTo("max-age=3600, stale-if-error=1");
            assertThat(r.body()).isEmpty();
        }
        // a write (one hour later, so the second-resolution time surely moves) makes a fresh server answer 200
        new IovStore(f.store().database(), Clock.offset(Clock.systemUTC(), Duration.ofHours(1)))
                .store(f.folder(), List.of(new NewIov(3, 5, ValidityKey.MAX, 4, "d")));
        FrontierServlet fresh = new FrontierServlet(new FrontierContext("Fresh", f.store().database()));
        try (TestServer s2 = new TestServer(fresh);
             RawHttp r = RawHttp.send(s2.port(), path("Fresh", "BLOB", q), "HTTP/1.0", ims)) {
            assertThat(r.status).isEqualTo(200);
            assertThat(r.header("Last-Modified")).isNotEqualTo(lm);
            assertThat(FrontierDecoder.decode(r.body()).only().records()).isEqualTo(4);
        }
        // queries on tables without a modification time never get Last-Modified
        try (RawHttp r = RawHttp.send(f.server().port(), path("Outpost", "BLOB", "select NODE_FULLPATH from OUTPOST_NODES"), "HTTP/1.0", headers())) {
            assertThat(r.header("Last-Modified")).isNull();
            assertThat(FrontierDecoder.decode(r.body()).only().data()).contains(List.of("/A/sv"));
        }
    }

    @ParameterizedTest
    @EnumSource(Backends.class)
    void largeResponsesAreCloseDelimitedNeverChunked(Backends b) throws Exception {
        Fixture f = fixture(b);
        String q = "select CHANNEL_ID, IOV_SINCE, IOV_UNTIL, S from " + f.iovs() + " order by CHANNEL_ID";
        for (String version : List.of("HTTP/1.0", "HTTP/1.1")) {
            try (RawHttp r = RawHttp.send(f.server().port(), path("Small", "BLOB", q, q, q), version, headers())) {
                assertThat(r.status).isEqualTo(200);
                assertThat(r.header("Content-Length")).isNull();
                assertThat(r.header("Transfer-Encoding")).isNull();
                FrontierDecoder.Response resp = FrontierDecoder.decode(r.body());
                assertThat(resp.payloads()).hasSize(3).allSatisfy(p -> assertThat(p.records()).isGreaterThanOrEqualTo(3));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Backends.class)
    void requestLinesOf16KilobytesAreServed(Backends b) throws Exception {
        Fixture f = fixture(b);
        Random rnd = new Random(1);
        StringBuilder lit = new StringBuilder();
        while (lit.length() < 20000) {
            lit.append(Long.toHexString(rnd.nextLong()));
        }
        String target = path("Outpost", "BLOBzip5", "select '" + lit + "' from dual");
        assertThat(target.length()).isBetween(14000, 16200);
        FrontierDecoder.Payload p = get(f, target, headers(), null).only();
        assertThat(p.data().get(0).get(0)).isEqualTo(lit.toString());
    }

    @ParameterizedTest
    @EnumSource(Backends.class)
    void keepalivesWhileWaitingThenBusyThenTimeout(Backends b) throws Exception {
        Fixture f = fixture(b);
        String q = path("Slow", "BLOBzip5", "select CHANNEL_ID from " + f.iovs());
        Connection held = f.slowDb().readPool().getConnection();
        RawHttp first = RawHttp.send(f.server().port(), q, "HTTP/1.0", headers());
        ByteArrayOutputStream sofar = new ByteArrayOutputStream();
        try (first) {
            // headers already came (the first keepalive committed them): no length, connection closes at the end
            assertThat(first.status).isEqualTo(200);
            assertThat(first.header("Content-Length")).isNull();
            first.readUntil("<keepalive />", sofar);
            // the only request slot is taken: 503 with the bare body
            try (RawHttp busy = RawHttp.send(f.server().port(), q, "HTTP/1.0", headers())) {
                assertThat(busy.status).isEqualTo(503);
                assertThat(busy.header("Cache-Control")).isEqualTo("no-store");
                assertThat(new String(busy.body())).isEqualTo("</frontier>\n");
            }
            held.close();
            FrontierDecoder.Payload p = FrontierDecoder.decode(first.body(sofar)).only();
            assertThat(p.keepalives()).isPositive();
            assertThat(p.error()).isFalse();
            assertThat(p.records()).isGreaterThanOrEqualTo(3);
        }
        // nobody releases the connection: bounded wait, then an in-band error (payload + global, max_age in quality)
        held = f.slowDb().readPool().getConnection();
        try (RawHttp r = RawHttp.send(f.server().port(), q, "HTTP/1.0", headers())) {
            FrontierDecoder.Response resp = FrontierDecoder.decode(r.body());
            assertThat(resp.only().error()).isTrue();
            assertThat(resp.only().message()).isEqualTo("Slow Timed out waiting to acquire DB connection");
            assertThat(resp.only().maxAge()).isZero(); // short TTL 0 -> error max age 0, so not printed
            assertThat(resp.only().keepalives()).isPositive();
            assertThat(resp.globalError()).isEqualTo("Slow Timed out waiting to acquire DB connection");
        } finally {
            held.close();
        }
    }
}
