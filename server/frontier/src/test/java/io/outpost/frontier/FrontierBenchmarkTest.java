package io.outpost.frontier;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.frontier.encode.AnswerDeflate;
import io.outpost.frontier.encode.FetchSizing;
import io.outpost.frontier.protocol.FrontierConfig;
import io.outpost.store.IovStore;
import io.outpost.store.model.KeyType;
import io.outpost.store.model.NewIov;
import io.outpost.store.model.Node;
import io.outpost.store.model.PayloadSpec;
import io.outpost.store.model.ValidityKey;
import io.outpost.store.model.Versioning;
import io.outpost.store.testing.Backends;
import io.outpost.testkit.FrontierDecoder;
import io.outpost.testkit.PostgresServer;
import io.outpost.testkit.RawHttp;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * likeLuis1iov through the Frontier endpoint (BLOBzip5) versus direct JDBC of the same rows, with 1 and 20 concurrent
 * connections: every fetch computed afresh (a context without answer cache), and served from the answer cache (the
 * same query again at the same table stamp: one stamp read, no query). Each worker keeps its HTTP connection open
 * between fetches (HTTP/1.0 with keep-alive, as frontier_client does), as JDBC keeps its pooled connection. The
 * concurrent workers are distinct clients (each from its own loopback address), and every timed fetch is checked
 * (HTTP status, the decoded answer, its record count): an error fails the benchmark instead of printing a ratio. Run
 * with {@code ./mvnw -Pbenchmark test -pl server/frontier -Dtest=FrontierBenchmarkTest} ({@code -Dbackend=POSTGRESQL}: that
 * backend only).
 */
@Tag("benchmark")
class FrontierBenchmarkTest {
    private static final int CHANNELS = 10_000;
    private static final int ROUNDS = 5;
    private static final int WARM_UP_ROUNDS = 5;

    @ParameterizedTest
    @EnumSource(Backends.class)
    void likeLuis1iovFrontierVersusJdbc(Backends b) throws Exception {
        String only = System.getProperty("backend");
        org.junit.jupiter.api.Assumptions.assumeTrue(only == null || only.equalsIgnoreCase(b.name()),
                () -> "-Dbackend=" + only + " times that backend only");
        postgresPid = b == Backends.POSTGRESQL ? PostgresServer.shared().pid() : 0;
        try (IovStore store = IovStore.open(b.freshConfig("bench_luis").withPools(24, 1))) {
            Node f = store.createFolder("/bench/luis", Versioning.SINGLE_VERSION, KeyType.TIME,
                    PayloadSpec.parse("s:String255"), "likeLuis1iov", true);
            Random r = new Random(3);
            List<NewIov> iovs = new ArrayList<>();
            for (int ch = 0; ch < CHANNELS; ch++) {
                StringBuilder s = new StringBuilder();
                for (int i = 0; i < 50; i++) {
                    s.append((char) ('!' + r.nextInt(94)));
                }
                iovs.add(new NewIov(ch, 0, ValidityKey.MAX, s.toString()));
            }
            store.store(f, iovs);
            String sql = "SELECT CHANNEL_ID, IOV_SINCE, IOV_UNTIL, S FROM " + f.iovTable() + " ORDER BY CHANNEL_ID";
            FrontierConfig config = FrontierConfig.defaults("Outpost").withLimits(java.time.Duration.ofSeconds(5), 300, 10, 200);
            // "Outpost" computes every answer afresh (no answer cache); "Kept" serves the kept answer after the first
            FrontierServlet servlet = new FrontierServlet(new FrontierContext("Outpost", store.database(), config), 0);
            FrontierServlet kept = new FrontierServlet(new FrontierContext("Kept", store.database(), config));
            try (TestServer server = new TestServer(servlet, kept)) {
                String target = FrontierRequests.path("Outpost", "BLOBzip5", java.util.Map.of(), sql);
                String keptTarget = FrontierRequests.path("Kept", "BLOBzip5", java.util.Map.of(), sql);
                Fetch viaFrontier = http(server.port(), target, CHANNELS);
                // the same computed answer compressed by java.util.zip instead of igzip (AnswerDeflate)
                Fetch viaZlib = withJdkDeflate(viaFrontier);
                String plainTarget = FrontierRequests.path("Outpost", "BLOB", java.util.Map.of(), sql);
                Fetch viaPlain = http(server.port(), plainTarget, CHANNELS);
                Fetch viaKept = http(server.port(), keptTarget, CHANNELS);
                // jobs asking at different times inside the IOV: a distinct query each fetch, the same rows (the
                // answer cache misses; the compressed text is reused by record content: EncodedRecords)
                java.util.concurrent.atomic.AtomicLong time = new java.util.concurrent.atomic.AtomicLong(1000);
                java.util.function.LongFunction<String> at = t -> "SELECT CHANNEL_ID, IOV_SINCE, IOV_UNTIL, S FROM "
                        + f.iovTable() + " WHERE IOV_SINCE <= " + t + " AND IOV_UNTIL > " + t + " ORDER BY CHANNEL_ID";
                Fetch viaReused = () -> http(server.port(), FrontierRequests.path("Kept", "BLOBzip5", java.util.Map.of(),
                        at.apply(time.incrementAndGet())), CHANNELS).call();
                Fetch viaJdbcDistinct = () -> jdbc(store, at.apply(time.incrementAndGet()), 500).call();
                Fetch viaJdbc = jdbc(store, sql, 500);
                // the same with the fetch size the service moves to after 500 such rows (FetchSizing)
                Fetch viaJdbcBatched = jdbc(store, sql, FetchSizing.size(95));
                // correctness of what is being timed
                int answerBytes;
                try (RawHttp h = RawHttp.send(server.port(), target, "HTTP/1.0", FrontierRequests.clientHeaders())) {
                    byte[] body = h.body();
                    answerBytes = body.length;
                    checkAnswer(h.status, body, CHANNELS);
                }
                try (RawHttp.Persistent one = new RawHttp.Persistent(server.port())) {
                    for (int i = 0; i < 3; i++) {
                        one.get(keptTarget, FrontierRequests.clientHeaders());
                    }
                    assertThat(one.opened()).as("kept answers keep the client's connection open").isEqualTo(1);
                }
                String deflate = AnswerDeflate.library(5);
                List<Timed> paths = List.of(new Timed("JDBC", viaJdbc),
                        new Timed("Frontier BLOBzip5 computed by " + deflate + " (" + answerBytes + " bytes)", viaFrontier),
                        new Timed("Frontier BLOBzip5 computed by java.util.zip", viaZlib),
                        new Timed("Frontier BLOBzip5 kept answer", viaKept),
                        new Timed("Frontier BLOB (uncompressed) computed", viaPlain),
                        new Timed("JDBC " + FetchSizing.size(95) + " rows a fetch", viaJdbcBatched),
                        new Timed("JDBC, a distinct query each fetch", viaJdbcDistinct),
                        new Timed("Frontier, a distinct query each fetch (text reused by record content)", viaReused));
                for (int threads : new int[] {1, 20}) {
                    int per = threads == 1 ? 20 : 2;
                    // the paths take turns, ROUNDS times: on a shared machine the median of each is compared. The
                    // same rounds run untimed first, so that the JIT has compiled every path's code: a service runs
                    // compiled code, and a path timed while still partly interpreted (one warm-up fetch, as before)
                    // cost up to 0.2 more of the ratio, depending on which backend had run before in the JVM
                    double[][] times = new double[paths.size()][ROUNDS];
                    double[][] cpu = new double[paths.size()][ROUNDS];
                    double[][] dbCpu = new double[paths.size()][ROUNDS];
                    for (int round = -WARM_UP_ROUNDS; round < ROUNDS; round++) {
                        for (int k = 0; k < paths.size(); k++) {
                            // each round starts at another path: no path always follows the same one (the garbage and
                            // cache state a path leaves behind land on the next)
                            int i = Math.floorMod(k + round * 3, paths.size());
                            Run run = run(paths.get(i).fetch(), threads, per);
                            if (round < 0) {
                                continue;
                            }
                            times[i][round] = run.msPerFetch();
                            cpu[i][round] = run.cpuMsPerFetch();
                            dbCpu[i][round] = run.dbCpuMsPerFetch();
                        }
                    }
                    // every fetch above was checked: only now are ratios printed
                    double jdbc = median(times[0]);
                    double jdbcDistinct = median(times[6]);
                    System.out.printf("BENCH %s likeLuis1iov %d conn: Frontier BLOBzip5 computed by %s / JDBC = %.2f "
                            + "(target <= %s), by java.util.zip / JDBC = %.2f; kept / JDBC = %.2f%n", b, threads, deflate,
                            median(times[1]) / jdbc, threads == 1 ? "1.4" : "0.8", median(times[2]) / jdbc,
                            median(times[3]) / jdbc);
                    // CPU time of this JVM per fetch (service, JDBC driver and HTTP client; SQLite runs in it too,
                    // PostgreSQL's backend does not): less moved by other work on the machine than wall time
                    for (int i = 0; i < paths.size(); i++) {
                        double base = i >= 6 ? jdbcDistinct : jdbc;
                        System.out.printf("BENCH %s likeLuis1iov %d conn: %-75s %7.1f ms/fetch, %5.2f of JDBC, JVM CPU "
                                + "%.1f ms/fetch%s%n", b, threads, paths.get(i).name(), median(times[i]),
                                median(times[i]) / base, median(cpu[i]), b == Backends.POSTGRESQL
                                        ? String.format(", PostgreSQL CPU %.1f ms/fetch", median(dbCpu[i])) : "");
                    }
                    if (b == Backends.POSTGRESQL) {
                        // when every core is busy, a fetch's wall time follows the CPU it costs in both processes: the
                        // ratio of the CPU per fetch is the lowest ratio a CPU-bound run can show
                        System.out.printf("BENCH %s likeLuis1iov %d conn: CPU per fetch (JVM + PostgreSQL), Frontier "
                                + "computed / JDBC = %.2f%n", b, threads, (median(cpu[1]) + median(dbCpu[1]))
                                / (median(cpu[0]) + median(dbCpu[0])));
                    }
                }
            }
        }
    }

    /** A path the benchmark times, by name. */
    private record Timed(String name, Fetch fetch) {
    }

    /** Wall time per fetch as one worker sees it, and this JVM's CPU time per fetch, both in ms. */
    private record Run(double msPerFetch, double cpuMsPerFetch, double dbCpuMsPerFetch) {
    }

    /**
     * One timed fetch. It returns the check of what it got (HTTP status, decoded answer, record count), run once the
     * timing is over: decoding is the client's work, not the server's, and is not timed, but no fetch goes unchecked.
     */
    interface Fetch {
        Runnable call() throws Exception;
    }

    /** Each worker's HTTP connection, kept open from fetch to fetch as frontier_client keeps it; closed by run. */
    private static final ThreadLocal<RawHttp.Persistent> CONNECTION = new ThreadLocal<>();
    /** The worker a thread of {@link #run} is: its connections come from its own loopback address. */
    private static final ThreadLocal<Integer> WORKER = ThreadLocal.withInitial(() -> 0);
    private static final java.util.Queue<RawHttp.Persistent> OPEN = new java.util.concurrent.ConcurrentLinkedQueue<>();

    /**
     * The worker's connection, from 127.0.0.(2 + worker): concurrent workers are distinct clients to the service (its
     * per-client limit counts requests by remote address), as the jobs of a grid site are.
     */
    private static RawHttp.Persistent connection(int port) throws java.net.UnknownHostException {
        RawHttp.Persistent c = CONNECTION.get();
        if (c == null || c.port() != port) { // the main thread's outlives one test's server
            c = new RawHttp.Persistent(port, java.net.InetAddress.getByAddress(new byte[] {127, 0, 0, (byte) (2 + WORKER.get())}));
            CONNECTION.set(c);
            OPEN.add(c);
        }
        return c;
    }

    /** A GET of {@code target} on the worker's connection; its check wants HTTP 200 and {@code records} records. */
    private static Fetch http(int port, String target, long records) {
        return () -> {
            RawHttp.Persistent c = connection(port);
            byte[] body = c.get(target, FrontierRequests.clientHeaders());
            int status = c.status();
            return () -> checkAnswer(status, body, records);
        };
    }

    static void checkAnswer(int status, byte[] body, long records) {
        if (status != 200) {
            throw new AssertionError("HTTP " + status + ": "
                    + new String(body, 0, Math.min(body.length, 300), java.nio.charset.StandardCharsets.ISO_8859_1));
        }
        FrontierDecoder.Response r = FrontierDecoder.decode(body);
        assertThat(r.globalError()).as("global error").isNull();
        FrontierDecoder.Payload p = r.only();
        assertThat(p.error()).as("payload error: %s", p.message()).isFalse();
        assertThat(p.records()).as("records of the answer").isEqualTo(records);
    }

    /** Raw JDBC: the rows of {@code sql} read as Strings through the store's read pool, {@code fetchSize} a time. */
    private static Fetch jdbc(IovStore store, String sql, int fetchSize) {
        return () -> {
            // the comment keeps this statement apart from the Frontier's in pgjdbc's per-connection statement cache: from
            // its fifth run there it is prepared on the server, and the Frontier's unnamed statement of the same text
            // would reuse that preparation and read binary rows (as no client of the service makes it do)
            try (Connection c = store.database().readPool().getConnection();
                 PreparedStatement ps = c.prepareStatement("/* raw JDBC */ " + sql)) {
                ps.setFetchSize(fetchSize);
                long rows = 0;
                long chars = 0;
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        rows++;
                        for (int i = 1; i <= 4; i++) {
                            String v = rs.getString(i);
                            chars += v == null ? 0 : v.length();
                        }
                    }
                }
                c.rollback();
                long n = rows;
                long read = chars;
                return () -> {
                    assertThat(n).as("JDBC rows").isEqualTo(CHANNELS);
                    assertThat(read).as("JDBC characters read").isPositive();
                };
            }
        };
    }

    /** A fetch run with answers compressed by java.util.zip (the property {@link AnswerDeflate#PROPERTY}), by {@link #run}. */
    private record JdkDeflate(Fetch fetch) implements Fetch {
        @Override
        public Runnable call() throws Exception {
            return fetch.call();
        }
    }

    private static Fetch withJdkDeflate(Fetch fetch) {
        return new JdkDeflate(fetch);
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
                .getOperatingSystemMXBean()).getProcessCpuTime();
    }

    /** The PostgreSQL server's postmaster while a PostgreSQL run is timed, else 0. */
    private static volatile long postgresPid;

    /**
     * CPU time of the test PostgreSQL server's processes (the postmaster and its children: the pooled connections'
     * backends live as long as the pool), or 0 outside a PostgreSQL run.
     */
    private static long postgresCpuNanos() {
        if (postgresPid == 0) {
            return 0;
        }
        return ProcessHandle.of(postgresPid).stream()
                .flatMap(p -> java.util.stream.Stream.concat(java.util.stream.Stream.of(p), p.descendants()))
                .mapToLong(p -> p.info().totalCpuDuration().map(java.time.Duration::toNanos).orElse(0L)).sum();
    }

    private static double median(double[] values) {
        double[] v = values.clone();
        java.util.Arrays.sort(v);
        return v[v.length / 2];
    }

    /**
     * {@code threads} concurrent workers (distinct clients) doing {@code per} fetches each: the wall time per fetch as
     * one worker sees it, and this JVM's CPU time per fetch. Then every fetch's check runs; the first failure fails the
     * benchmark.
     */
    private static Run run(Fetch fetch, int threads, int per) throws Exception {
        if (fetch instanceof JdkDeflate) {
            System.setProperty(AnswerDeflate.PROPERTY, "jdk");
        }
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Runnable> checks = new ArrayList<>();
        Run timed;
        try {
            long cpu0 = processCpuNanos();
            long db0 = postgresCpuNanos();
            long t0 = System.nanoTime();
            List<Future<List<Runnable>>> fs = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int worker = t;
                fs.add(pool.submit(() -> {
                    WORKER.set(worker);
                    List<Runnable> mine = new ArrayList<>(per);
                    for (int i = 0; i < per; i++) {
                        mine.add(fetch.call());
                    }
                    return mine;
                }));
            }
            for (Future<List<Runnable>> f : fs) {
                checks.addAll(f.get());
            }
            long total = System.nanoTime() - t0;
            double cpu = (processCpuNanos() - cpu0) / 1e6 / (threads * per);
            double db = (postgresCpuNanos() - db0) / 1e6 / (threads * per);
            timed = new Run(total / 1e6 / (threads * per) * threads, cpu, db);
        } finally {
            pool.shutdownNow();
            for (RawHttp.Persistent c; (c = OPEN.poll()) != null; ) {
                c.close();
            }
            System.clearProperty(AnswerDeflate.PROPERTY);
        }
        assertThat(checks).hasSize(threads * per);
        checks.forEach(Runnable::run);
        return timed;
    }
}
