package io.outpost.frontier;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.frontier.cost.QueryCostLimits;
import io.outpost.frontier.protocol.FrontierConfig;
import io.outpost.store.IovStore;
import io.outpost.store.db.Database;
import io.outpost.store.db.DatabaseConfig;
import io.outpost.store.model.KeyType;
import io.outpost.store.model.NewIov;
import io.outpost.store.model.Node;
import io.outpost.store.model.PayloadSpec;
import io.outpost.store.model.Versioning;
import io.outpost.store.testing.Backends;
import io.outpost.testkit.FrontierDecoder;
import io.outpost.testkit.RawHttp;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The cost guard over real HTTP, on SQLite, a real PostgreSQL and a real MariaDB. */
class QueryCostEndToEndTest {
    record Fixture(IovStore store, Node folder, Database onePool, TestServer server) {
    }

    private static final Map<Backends, Fixture> FIXTURES = new EnumMap<>(Backends.class);

    static synchronized Fixture fixture(Backends b) throws Exception {
        Fixture f = FIXTURES.get(b);
        if (f != null) {
            return f;
        }
        DatabaseConfig cfg = b.freshConfig("frontier_cost");
        IovStore store = IovStore.open(cfg.withPools(4, 1));
        Node folder = store.createFolder("/C/sv", Versioning.SINGLE_VERSION, KeyType.TIME,
                PayloadSpec.parse("x:Int32"), "test", true);
        List<NewIov> iovs = new ArrayList<>();
        for (int i = 0; i < 3000; i++) {
            iovs.add(new NewIov(i % 10, 10L * i, 10L * i + 10, i));
        }
        store.store(folder, iovs);
        if (b != Backends.SQLITE) {
            try (Connection c = store.database().writePool().getConnection()) {
                c.setAutoCommit(true);
                c.createStatement().execute(b == Backends.POSTGRESQL ? "ANALYZE" : "ANALYZE TABLE " + folder.iovTable());
            }
        }
        Database one = Database.open(cfg.withPools(1, 1).withTimeouts(Duration.ofMillis(300), Duration.ofSeconds(30)));
        FrontierConfig base = FrontierConfig.defaults("Outpost");
        // a low MaxQueryCost so that a 3000-row self-join is above it and an indexed lookup below
        FrontierServlet guarded = new FrontierServlet(new FrontierContext("Guarded", store.database(), base),
                new QueryCostLimits(4, true, 5000, 8));
        FrontierServlet perClient = new FrontierServlet(new FrontierContext("PerClient", one,
                FrontierConfig.defaults("PerClient").withLimits(Duration.ofMillis(100), 20, 10, 10)),
                new QueryCostLimits(4, true, 0, 1));
        f = new Fixture(store, folder, one, new TestServer(guarded, perClient));
        FIXTURES.put(b, f);
        return f;
    }

    @AfterAll
    static void closeAll() throws Exception {
        for (Fixture f : FIXTURES.values()) {
            f.server().close();
            f.onePool().close();
            f.store().close();
        }
        FIXTURES.clear();
    }

    private static FrontierDecoder.Payload query(Fixture f, String ctx, String sql) throws Exception {
        try (RawHttp r = RawHttp.send(f.server().port(), FrontierRequests.path(ctx, "BLOB", Map.of(), sql), "HTTP/1.0",
                FrontierRequests.clientHeaders())) {
            assertThat(r.status).isEqualTo(200);
            FrontierDecoder.Payload p = FrontierDecoder.decode(r.body()).only();
            if (p.error()) {
                // errors are not cached (the error max-age is the short TTL, 0 by default)
                assertThat(r.header("Cache-Control")).startsWith("max-age=0");
            }
            return p;
        }
    }

    @ParameterizedTest
    @EnumSource(Backends.class)
    void aFourWayCartesianProductIsRejectedBeforeItRuns(Backends b) throws Exception {
        Fixture f = fixture(b);
        String t = f.folder().iovTable();
        FrontierDecoder.Payload p = query(f, "Guarded", "SELECT COUNT(*) FROM " + t + " a, " + t + " b, " + t + " c, "
                + t + " d");
        assertThat(p.error()).isTrue();
        assertThat(p.message()).contains("SQL rejected: cartesian product: ").contains("is not joined to");
    }

    @ParameterizedTest
    @EnumSource(Backends.class)
    void joinedQueriesStillAnswer(Backends b) throws Exception {
        Fixture f = fixture(b);
        String t = f.folder().iovTable();
        FrontierDecoder.Payload p = query(f, "Guarded", "SELECT a.X FROM " + t + " a WHERE a.CHANNEL_ID = 3 AND a.IOV_SINCE = 30");
        assertThat(p.error()).isFalse();
        assertThat(p.data()).containsExactly(List.of("3"));
    }

    @ParameterizedTest
    @EnumSource(value = Backends.class, names = {"POSTGRESQL", "MARIADB"}) // SQLite gives no estimate
    void costEstimateAboveTheLimitIsRejected(Backends b) throws Exception {
        Fixture f = fixture(b);
        String t = f.folder().iovTable();
        // joined, so the shape check passes; but a range self-join of 3000 rows is far above MaxQueryCost=5000
        FrontierDecoder.Payload p = query(f, "Guarded", "SELECT COUNT(*) FROM " + t + " a, " + t + " b "
                + "WHERE a.IOV_SINCE <= b.IOV_SINCE");
        assertThat(p.error()).isTrue();
        assertThat(p.message()).contains("Query rejected: the database estimates its cost at ").contains("(MaxQueryCost)");
        // with bind variables too (the legacy ':' form)
        FrontierDecoder.Payload bound = query(f, "Guarded", "SELECT COUNT(*) FROM " + t + " a, " + t + " b "
                + "WHERE a.IOV_SINCE <= b.IOV_SINCE AND a.CHANNEL_ID > ?:0");
        assertThat(bound.error()).isTrue();
        assertThat(bound.message()).contains("(MaxQueryCost)");
        FrontierDecoder.Payload cheap = query(f, "Guarded", "SELECT a.X FROM " + t + " a WHERE a.CHANNEL_ID = ? AND a.IOV_SINCE = ?:5:50");
        assertThat(cheap.error()).isFalse();
        assertThat(cheap.data()).containsExactly(List.of("5"));
    }

    @ParameterizedTest
    @EnumSource(Backends.class)
    void oneClientCannotRunMoreThanItsLimitOthersCan(Backends b) throws Exception {
        Fixture f = fixture(b);
        String sql = "SELECT a.X FROM " + f.folder().iovTable() + " a WHERE a.CHANNEL_ID = 1 AND a.IOV_SINCE = 10";
        String target = FrontierRequests.path("PerClient", "BLOB", Map.of(), sql);
        Map<String, String> clientA = FrontierRequests.clientHeaders();
        // the same client under another name and with a forwarded address of its own choosing: still client A
        Map<String, String> clientAInDisguise = new LinkedHashMap<>(clientA);
        clientAInDisguise.put("X-Frontier-Id", "client 2.10.2 9999 other(1) other");
        clientAInDisguise.put("X-Forwarded-For", "192.0.2.99");
        CompletableFuture<Integer> one;
        CompletableFuture<Integer> two;
        // the context's only connection is held here, so client A's admitted request waits for it
        try (ExecutorService pool = Executors.newFixedThreadPool(3);
             Connection held = f.onePool().readPool().getConnection()) {
            assertThat(held.isValid(1)).isTrue();
            one = CompletableFuture.supplyAsync(() -> statusOf(f, target, clientA), pool);
            two = CompletableFuture.supplyAsync(() -> statusOf(f, target, clientAInDisguise), pool);
            Object refused = CompletableFuture.anyOf(one, two).get(10, TimeUnit.SECONDS);
            assertThat(refused).as("client A's second concurrent request").isEqualTo(503);
            assertThat(one.isDone() && two.isDone()).as("the admitted request is still waiting").isFalse();
            // a client at another address meanwhile is admitted (it waits for the connection too)
            CompletableFuture<Integer> other = CompletableFuture.supplyAsync(() -> statusFrom("127.0.0.2", f, target,
                    clientA), pool);
            held.close();
            int admitted = (one.getNow(0) == 503 ? two : one).get(20, TimeUnit.SECONDS);
            assertThat(admitted).isEqualTo(200);
            assertThat(other.get(20, TimeUnit.SECONDS)).as("another address is another client").isEqualTo(200);
        }
        // the admitted request's slot is released just after its answer was sent: poll briefly for it
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        int again;
        while ((again = statusOf(f, target, clientA)) == 503 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(again).isEqualTo(200);
    }

    private static int statusOf(Fixture f, String target, Map<String, String> headers) {
        return statusFrom("127.0.0.1", f, target, headers);
    }

    private static int statusFrom(String from, Fixture f, String target, Map<String, String> headers) {
        try (RawHttp r = RawHttp.sendFrom(from, f.server().port(), target, "HTTP/1.0", headers)) {
            r.body();
            if (r.status == 503) {
                // refused for this client only: never cached, retried soon
                assertThat(r.header("Retry-After")).isEqualTo("1");
                assertThat(r.header("Cache-Control")).isEqualTo("no-store");
            }
            return r.status;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
