package io.outpost.frontier.answers;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.frontier.protocol.FrontierConfig;
import io.outpost.frontier.FrontierContext;
import io.outpost.frontier.FrontierRequests;
import io.outpost.frontier.FrontierServlet;
import io.outpost.frontier.TestServer;
import io.outpost.frontier.cost.SteadyShapes;
import io.outpost.frontier.encode.AnswerDeflate;
import io.outpost.frontier.encode.EncodedRecords;
import io.outpost.store.IovStore;
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
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The Frontier answer cache: many clients missing the same query at once run it once; a write is in the very next
 * answer (whatever the freshkey); kept answers decode to the same rows as computed ones (the deflate stream itself may
 * differ: pieces or one call, chosen by the machine's idle cores); queries of tables without a stamp are never kept; an answer published at one stamp is never served at another.
 */
class FrontierAnswersTest {
    private static final int ROWS = 3000;

    private static String sql(Node f) {
        return "SELECT CHANNEL_ID, IOV_SINCE, IOV_UNTIL, S FROM " + f.iovTable() + " ORDER BY CHANNEL_ID, IOV_SINCE";
    }

    private static byte[] fetch(TestServer server, String ctx, String sql, String freshkey) throws Exception {
        return fetch(server, ctx, sql, freshkey, "127.0.0.1");
    }

    /** As a client at {@code from}: the servlet limits the requests per client address (MaxRequestsPerClient). */
    private static byte[] fetch(TestServer server, String ctx, String sql, String freshkey, String from) throws Exception {
        String target = FrontierRequests.path(ctx, "BLOBzip5", freshkey == null ? Map.of() : Map.of("freshkey", freshkey), sql);
        try (RawHttp r = RawHttp.sendFrom(from, server.port(), target, "HTTP/1.0", FrontierRequests.clientHeaders())) {
            assertThat(r.status).isEqualTo(200);
            return r.body();
        }
    }

    /**
     * {@code clients} site Squids (each its own freshkey and loopback address) asking {@code sql} of context "Cached" at
     * once; each gets the rows context "Plain" (no answer cache) computes.
     */
    private static void missTogether(TestServer server, String sql, int clients) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        List<Future<byte[]>> bodies = new ArrayList<>();
        try {
            CountDownLatch go = new CountDownLatch(1);
            for (int i = 0; i < clients; i++) {
                String key = "squid" + i;
                String from = "127.0.0." + (10 + i);
                bodies.add(pool.submit(() -> {
                    go.await();
                    return fetch(server, "Cached", sql, key, from);
                }));
            }
            go.countDown();
            List<List<String>> reference = rows(fetch(server, "Plain", sql, null));
            assertThat(reference).hasSize(ROWS);
            for (Future<byte[]> body : bodies) {
                assertThat(rows(body.get(60, TimeUnit.SECONDS))).as("same rows as computed afresh").isEqualTo(reference);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /** A single-version folder with one open IOV per channel, {@value #ROWS} channels. */
    private static Node folderOfRows(IovStore store, String path) {
        Node f = store.createFolder(path, Versioning.SINGLE_VERSION, KeyType.TIME, PayloadSpec.parse("s:String255"),
                "", true);
        List<NewIov> batch = new ArrayList<>();
        for (int ch = 0; ch < ROWS; ch++) {
            batch.add(new NewIov(ch, 10, ValidityKey.MAX, "value-" + ch));
        }
        store.store(f, batch);
        return f;
    }

    private static List<List<String>> rows(byte[] body) {
        FrontierDecoder.Payload p = FrontierDecoder.decode(body).only();
        assertThat(p.error()).as(p.message()).isFalse();
        return p.data();
    }

    @ParameterizedTest
    @EnumSource(Backends.class)
    void manyClientsMissingTogetherRunTheQueryOnceAndAWriteIsSeenAtOnce(Backends b) throws Exception {
        try (IovStore store = b.freshStore("frontier_answers")) {
            Node f = folderOfRows(store, "/FA/sv");
            FrontierServlet cached = new FrontierServlet(new FrontierContext("Cached", store.database()));
            FrontierServlet plain = new FrontierServlet(new FrontierContext("Plain", store.database()), 0);
            try (TestServer server = new TestServer(cached, plain)) {
                int clients = 12;
                missTogether(server, sql(f), clients);
                assertThat(cached.answers().loads()).as("database runs for %d clients", clients).isEqualTo(1);
                assertThat(cached.answers().hits()).isEqualTo(clients - 1);
                assertThat(plain.answers().loads()).as("a context without a cache keeps nothing").isZero();

                store.store(f, List.of(new NewIov(0, 20, ValidityKey.MAX, "new")));
                List<List<String>> after = rows(fetch(server, "Cached", sql(f), "later"));
                assertThat(after).hasSize(ROWS + 1);
                assertThat(after.get(0)).containsExactly("0", "10", "20", "value-0");
                assertThat(after.get(1)).containsExactly("0", "20", String.valueOf(ValidityKey.MAX), "new");
                assertThat(cached.answers().loads()).isEqualTo(2);
                assertThat(rows(fetch(server, "Cached", sql(f), "again"))).isEqualTo(rows(fetch(server, "Plain", sql(f), null)));
                assertThat(cached.answers().loads()).isEqualTo(2);
            }
        }
    }

    /**
     * A statement of a shape already admitted, new to the answer cache (COOL's next time t): on PostgreSQL its
     * prelude goes with the query, in one round trip. Identical requests arriving meanwhile still wait for that one
     * run and get its answer, the answer is kept at the stamp read with it, and a write is seen at once.
     */
    @ParameterizedTest
    @EnumSource(Backends.class)
    void aNewStatementOfAnAdmittedShapeRunsOnceForAllWhoAskAndIsKept(Backends b) throws Exception {
        try (IovStore store = b.freshStore("frontier_claims")) {
            Node f = folderOfRows(store, "/FA/claims");
            java.util.function.LongFunction<String> at = t -> "SELECT CHANNEL_ID, IOV_SINCE, IOV_UNTIL, S FROM "
                    + f.iovTable() + " WHERE IOV_SINCE <= " + t + " AND IOV_UNTIL > " + t + " ORDER BY CHANNEL_ID";
            FrontierServlet cached = new FrontierServlet(new FrontierContext("Cached", store.database()));
            FrontierServlet plain = new FrontierServlet(new FrontierContext("Plain", store.database()), 0);
            try (TestServer server = new TestServer(cached, plain)) {
                for (int t = 11; t < 11 + SteadyShapes.EARNED_AFTER; t++) { // estimated: the shape earns standing
                    assertThat(rows(fetch(server, "Cached", at.apply(t), null))).hasSize(ROWS);
                }
                long loads = cached.answers().loads();
                long hits = cached.answers().hits();
                int clients = 12;
                missTogether(server, at.apply(15), clients);
                assertThat(cached.answers().loads() - loads).as("database runs for %d clients", clients).isEqualTo(1);
                assertThat(cached.answers().hits() - hits).isEqualTo(clients - 1);
                assertThat(cached.answers().claims()).as("prelude with the query")
                        .isEqualTo(b == Backends.POSTGRESQL ? 1 : 0);

                fetch(server, "Cached", at.apply(15), "again");
                assertThat(cached.answers().hits() - hits).as("kept at the stamp read with the query").isEqualTo(clients);

                store.store(f, List.of(new NewIov(0, 16, ValidityKey.MAX, "new")));
                List<List<String>> after = rows(fetch(server, "Cached", at.apply(17), null));
                assertThat(after).hasSize(ROWS).contains(List.of("0", "16", String.valueOf(ValidityKey.MAX), "new"));
                assertThat(cached.answers().claims()).isEqualTo(b == Backends.POSTGRESQL ? 2 : 0);
                assertThat(rows(fetch(server, "Cached", at.apply(15), "afterwrite")))
                        .as("the kept answer is of the old stamp: computed again")
                        .contains(List.of("0", "10", "16", "value-0"));
            }
        }
    }

    /** A statement with bind values, admitted at one zip level and new to the cache at another: sent with its prelude. */
    @ParameterizedTest
    @EnumSource(Backends.class)
    void bindValuesGoWithTheQueryWhenThePreludeDoes(Backends b) throws Exception {
        try (IovStore store = b.freshStore("frontier_claim_binds")) {
            Node f = folderOfRows(store, "/FA/binds");
            String bound = "SELECT CHANNEL_ID, S FROM " + f.iovTable() + " WHERE CHANNEL_ID >= ? AND CHANNEL_ID < ?"
                    + " ORDER BY CHANNEL_ID:3:6";
            FrontierServlet cached = new FrontierServlet(new FrontierContext("Cached", store.database()));
            try (TestServer server = new TestServer(cached)) {
                for (String encoding : List.of("BLOB", "BLOBzip5")) {
                    String target = FrontierRequests.path("Cached", encoding, Map.of(), bound);
                    try (RawHttp r = RawHttp.send(server.port(), target, "HTTP/1.0", FrontierRequests.clientHeaders())) {
                        assertThat(rows(r.body())).as(encoding).containsExactly(List.of("3", "value-3"),
                                List.of("4", "value-4"), List.of("5", "value-5"));
                    }
                }
                assertThat(cached.answers().claims()).as("the second level: admitted, new to the cache")
                        .isEqualTo(b == Backends.POSTGRESQL ? 1 : 0);
            }
        }
    }

    /**
     * Answers bigger than the response buffer go out with their length, so the connection can stay open: a computed
     * answer held and compressed whole (its text written as one array), and then the same answer from memory (the
     * kept text is sent by reference, not copied into the buffer the limit is for). The whole text is what the
     * streaming encoder writes: lines of 76 characters, the last one shorter, no newline at the end.
     */
    @Test
    void computedAndKeptAnswersBiggerThanTheResponseBufferGoOutWithTheirLength() throws Exception {
        try (IovStore store = Backends.SQLITE.freshStore("frontier_kept_length")) {
            Node f = folderOfRows(store, "/FA/big");
            FrontierConfig small = FrontierConfig.fromProperties("Small", Map.of("ResponseBufferBytes", "4096"));
            FrontierServlet cached = new FrontierServlet(new FrontierContext("Small", store.database(), small));
            try (TestServer server = new TestServer(cached)) {
                String target = FrontierRequests.path("Small", "BLOBzip5", Map.of(), sql(f));
                byte[] first;
                try (RawHttp r = RawHttp.send(server.port(), target, "HTTP/1.1", FrontierRequests.clientHeaders())) {
                    first = r.body();
                    assertThat(r.header("Content-Length")).as("computed whole").isEqualTo(String.valueOf(first.length));
                    assertThat(r.header("Connection")).isNull();
                }
                assertThat(first.length).isGreaterThan(4096);
                String text = new String(first, StandardCharsets.US_ASCII);
                String data = text.substring(text.indexOf("<data>") + 6, text.indexOf("</data>"));
                ByteArrayOutputStream streamed = new ByteArrayOutputStream();
                try (OutputStream enc = Base64.getMimeEncoder(76, new byte[] {'\n'}).wrap(streamed)) {
                    enc.write(Base64.getMimeDecoder().decode(data));
                }
                assertThat(data).isEqualTo(streamed.toString(StandardCharsets.US_ASCII));
                try (RawHttp r = RawHttp.send(server.port(), target, "HTTP/1.1", FrontierRequests.clientHeaders())) {
                    assertThat(r.header("Content-Length")).isEqualTo(String.valueOf(first.length));
                    assertThat(r.header("Connection")).isNull();
                    assertThat(r.body()).isEqualTo(first);
                }
                assertThat(cached.answers().hits()).isEqualTo(1);
            }
        }
    }

    /**
     * Answers compressed whole (by igzip where it loads, or by java.util.zip) and answers the encoder streams
     * (uncompressed) go out whole: with their length and the connection left open, the same payload.
     */
    @ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource({"'',BLOBzip5", "jdk,BLOBzip5", "'',BLOB"})
    void streamedAnswersBiggerThanTheResponseBufferGoOutWithTheirLength(String way, String encoding) throws Exception {
        try (IovStore store = Backends.SQLITE.freshStore("frontier_streamed_length")) {
            Node f = folderOfRows(store, "/FA/streamed");
            FrontierConfig small = FrontierConfig.fromProperties("Small", Map.of("ResponseBufferBytes", "4096"));
            FrontierServlet fresh = new FrontierServlet(new FrontierContext("Small", store.database(), small), 0);
            System.setProperty(AnswerDeflate.PROPERTY, way);
            try (TestServer server = new TestServer(fresh);
                 RawHttp.Persistent connection = new RawHttp.Persistent(server.port())) {
                String target = FrontierRequests.path("Small", encoding, Map.of(), sql(f));
                byte[] first = connection.get(target, FrontierRequests.clientHeaders());
                byte[] second = connection.get(target, FrontierRequests.clientHeaders());
                assertThat(first.length).isGreaterThan(4096);
                assertThat(connection.opened()).as("both on one connection: each answer had its length").isEqualTo(1);
                FrontierDecoder.Payload p = FrontierDecoder.decode(first).only();
                assertThat(p.records()).isEqualTo(ROWS);
                assertThat(FrontierDecoder.decode(second).only().records()).isEqualTo(ROWS);
                assertThat(second).as("computed again, the same bytes").isEqualTo(first);
            } finally {
                System.clearProperty(AnswerDeflate.PROPERTY);
            }
        }
    }

    /**
     * Jobs asking at different times inside one IOV: distinct queries (each runs on the database), the same rows, one
     * compression. A write changes the rows, and with them the answer.
     */
    @ParameterizedTest
    @EnumSource(Backends.class)
    void queriesThatDifferButYieldTheSameRowsShareOneCompressedAnswer(Backends b) throws Exception {
        try (IovStore store = b.freshStore("frontier_reuse")) {
            Node f = store.createFolder("/FA/reuse", Versioning.SINGLE_VERSION, KeyType.TIME,
                    PayloadSpec.parse("s:String255"), "", true);
            List<NewIov> batch = new ArrayList<>();
            for (int ch = 0; ch < ROWS; ch++) {
                batch.add(new NewIov(ch, 10, ValidityKey.MAX, "value-" + ch));
            }
            store.store(f, batch);
            FrontierServlet servlet = new FrontierServlet(new FrontierContext("Cached", store.database()));
            EncodedRecords memo = servlet.answers().byContent();
            java.util.function.LongFunction<String> at = t -> "SELECT CHANNEL_ID, IOV_SINCE, IOV_UNTIL, S FROM "
                    + f.iovTable() + " WHERE IOV_SINCE <= " + t + " AND IOV_UNTIL > " + t + " ORDER BY CHANNEL_ID";
            try (TestServer server = new TestServer(servlet)) {
                byte[] first = fetch(server, "Cached", at.apply(100), null);
                byte[] second = fetch(server, "Cached", at.apply(200), null);
                assertThat(servlet.answers().loads()).as("two distinct queries, two database runs").isEqualTo(2);
                assertThat(memo.reused()).isEqualTo(1);
                assertThat(second).isEqualTo(first);
                assertThat(rows(second)).hasSize(ROWS);

                store.store(f, List.of(new NewIov(0, 300, ValidityKey.MAX, "new")));
                List<List<String>> after = rows(fetch(server, "Cached", at.apply(400), null));
                assertThat(memo.reused()).as("other rows").isEqualTo(1);
                assertThat(after.get(0)).containsExactly("0", "300", String.valueOf(ValidityKey.MAX), "new");
                assertThat(after.subList(1, ROWS)).isEqualTo(rows(first).subList(1, ROWS));
                assertThat(rows(fetch(server, "Cached", at.apply(500), null))).isEqualTo(after);
                assertThat(memo.reused()).isEqualTo(2);
                assertThat(rows(fetch(server, "Cached", at.apply(200), null)).get(0))
                        .as("the old time's rows, now closed at 300").containsExactly("0", "10", "300", "value-0");
            }
        }
    }

    @Test
    void queriesOfTablesWithoutAStampAreNeverKept() throws Exception {
        try (IovStore store = Backends.SQLITE.freshStore("frontier_unkept")) {
            Node f = store.createFolder("/FA/u", Versioning.SINGLE_VERSION, KeyType.TIME, PayloadSpec.parse("s:String255"),
                    "", true);
            store.createChannel(f, 1, "one", "");
            FrontierServlet cached = new FrontierServlet(new FrontierContext("Cached", store.database()));
            try (TestServer server = new TestServer(cached)) {
                for (int i = 0; i < 2; i++) {
                    rows(fetch(server, "Cached", "select 1 from dual", null));
                    rows(fetch(server, "Cached", "SELECT CHANNEL_ID, CHANNEL_NAME FROM " + f.channelTable(), null));
                }
                store.createChannel(f, 2, "two", ""); // channel rows change without the folder's stamp
                assertThat(rows(fetch(server, "Cached", "SELECT CHANNEL_ID FROM " + f.channelTable(), null))).hasSize(2);
                assertThat(cached.answers().loads()).isZero();
                assertThat(cached.answers().hits()).isZero();
            }
        }
    }

    @Test
    void anAnswerIsServedOnlyAtItsOwnStampAndWaitersGetThePublishedOne() throws Exception {
        FrontierAnswers answers = new FrontierAnswers("OUTPOST_", 1 << 20);
        FrontierAnswers.Key key = new FrontierAnswers.Key("SELECT 1", List.of(), 5);
        FrontierAnswers.Flight first = answers.begin(key, "s1", 1000);
        assertThat(first.publishes()).isTrue();
        int waiters = 5;
        ExecutorService pool = Executors.newFixedThreadPool(waiters);
        try {
            List<Future<FrontierAnswers.Flight>> joined = new ArrayList<>();
            for (int i = 0; i < waiters; i++) {
                joined.add(pool.submit(() -> answers.begin(key, "s1", 30_000)));
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (answers.joins() < waiters) {
                assertThat(System.nanoTime()).as("waiters joined in time").isLessThan(deadline);
                Thread.onSpinWait();
            }
            FrontierAnswers.Encoded e = new FrontierAnswers.Encoded("s1", new byte[] {1, 2, 3}, "md5", 1, 3);
            answers.finish(first, e);
            for (Future<FrontierAnswers.Flight> j : joined) {
                assertThat(j.get(30, TimeUnit.SECONDS).ready()).isSameAs(e);
            }
        } finally {
            pool.shutdownNow();
        }
        FrontierAnswers.Flight later = answers.begin(key, "s2", 1000);
        assertThat(later.ready()).as("never served at another stamp").isNull();
        assertThat(later.publishes()).isTrue();
        // a loader whose data changed while it read publishes nothing
        answers.finish(later, new FrontierAnswers.Encoded("s3", new byte[] {9}, "md5", 1, 1));
        FrontierAnswers.Flight again = answers.begin(key, "s3", 1000);
        assertThat(again.ready()).isNull();
        assertThat(answers.loads()).isEqualTo(3);
    }
}
