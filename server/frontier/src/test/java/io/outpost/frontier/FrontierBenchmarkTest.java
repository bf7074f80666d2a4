package io.outpost.frontier;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.store.IovStore;
import io.outpost.store.model.KeyType;
import io.outpost.store.model.NewIov;
import io.outpost.store.model.Node;
import io.outpost.store.model.PayloadSpec;
import io.outpost.store.model.ValidityKey;
import io.outpost.store.model.Versioning;
import io.outpost.store.testing.Backends;
import io.outpost.testkit.RawHttp;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;
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
 * between fetches (HTTP/1.0 with keep-alive, as frontier_client does), as JDBC keeps its pooled connection. Run with
 * {@code ./mvnw -Pbenchmark test -pl server/frontier}.
 */
@Tag("benchmark")
class FrontierBenchmarkTest {
    private static final int CHANNELS = 10_000;
    private static final int ROUNDS = 5;

    @ParameterizedTest
    @EnumSource(Backends.class)
    void likeLuis1iovFrontierVersusJdbc(Backends b) throws Exception {
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
                String target = FrontierDecoder.path("Outpost", "BLOBzip5", java.util.Map.of(), sql);
                String keptTarget = FrontierDecoder.path("Kept", "BLOBzip5", java.util.Map.of(), sql);
                Callable<Long> viaFrontier = () -> {
                    return (long) connection(server.port()).get(target, FrontierDecoder.clientHeaders()).length;
                };
                // the same computed answer compressed by java.util.zip (streamed on a second thread), by the native
                // library in pieces while the rows are read, and in one call at close, instead of the default
                // (at close, split across the cores while few answers are under way; pieces while few
                // answers are under way on 4 cores or more)
                Callable<Long> viaZlib = withDeflate("jdk", viaFrontier);
                Callable<Long> viaPieces = withDeflate("pieces", viaFrontier);
                Callable<Long> viaWhole = withDeflate("whole", viaFrontier);
                Callable<Long> viaSplit = withDeflate("split", viaFrontier);
                // the default way with libdeflate at level 5 instead of igzip (NativeDeflate.forLevel)
                Callable<Long> viaLibdeflate = new Deflating("", "libdeflate", viaFrontier);
                String plainTarget = FrontierDecoder.path("Outpost", "BLOB", java.util.Map.of(), sql);
                Callable<Long> viaPlain = () -> {
                    return (long) connection(server.port()).get(plainTarget, FrontierDecoder.clientHeaders()).length;
                };
                Callable<Long> viaKept = () -> {
                    return (long) connection(server.port()).get(keptTarget, FrontierDecoder.clientHeaders()).length;
                };
                // jobs asking at different times inside the IOV: a distinct query each fetch, the same rows (the
                // answer cache misses; the compressed text is reused by record content: EncodedRecords)
                java.util.concurrent.atomic.AtomicLong time = new java.util.concurrent.atomic.AtomicLong(1000);
                java.util.function.LongFunction<String> at = t -> "SELECT CHANNEL_ID, IOV_SINCE, IOV_UNTIL, S FROM "
                        + f.iovTable() + " WHERE IOV_SINCE <= " + t + " AND IOV_UNTIL > " + t + " ORDER BY CHANNEL_ID";
                Callable<Long> viaReused = () -> {
                    String distinct = FrontierDecoder.path("Kept", "BLOBzip5", java.util.Map.of(),
                            at.apply(time.incrementAndGet()));
                    return (long) connection(server.port()).get(distinct, FrontierDecoder.clientHeaders()).length;
                };
                Callable<Long> viaJdbcDistinct = () -> jdbc(store, at.apply(time.incrementAndGet()), 500).call();
                Callable<Long> viaJdbc = jdbc(store, sql, 500);
                // the same with the fetch size the service moves to after 500 such rows (FetchSizing)
                Callable<Long> viaJdbcBatched = jdbc(store, sql, FetchSizing.size(95));
                // correctness of what is being timed
                FrontierDecoder.Payload p;
                try (RawHttp h = RawHttp.send(server.port(), target, "HTTP/1.0", FrontierDecoder.clientHeaders())) {
                    p = FrontierDecoder.decode(h.body()).only();
                }
                assertThat(p.records()).isEqualTo(CHANNELS);
                try (RawHttp.Persistent one = new RawHttp.Persistent(server.port())) {
                    for (int i = 0; i < 3; i++) {
                        one.get(keptTarget, FrontierDecoder.clientHeaders());
                    }
                    assertThat(one.opened()).as("kept answers keep the client's connection open").isEqualTo(1);
                }
                for (int threads : new int[] {1, 20}) {
                    int per = threads == 1 ? 20 : 2;
                    run(viaJdbc, threads, 1); // warm-up of each path
                    run(viaFrontier, threads, 1);
                    run(viaKept, threads, 1);
                    run(viaPlain, threads, 1);
                    run(viaZlib, threads, 1);
                    run(viaPieces, threads, 1);
                    run(viaWhole, threads, 1);
                    run(viaJdbcBatched, threads, 1);
                    run(viaSplit, threads, 1);
                    run(viaJdbcDistinct, threads, 1);
                    run(viaReused, threads, 1);
                    run(viaLibdeflate, threads, 1);
                    // the paths take turns, ROUNDS times: on a shared machine the median of each is compared
                    List<Callable<Long>> paths = List.of(viaJdbc, viaFrontier, viaZlib, viaKept, viaPlain, viaPieces, viaWhole, viaJdbcBatched, viaSplit,
                            viaJdbcDistinct, viaReused, viaLibdeflate);
                    double[][] times = new double[paths.size()][ROUNDS];
                    double[][] cpu = new double[paths.size()][ROUNDS];
                    for (int round = 0; round < ROUNDS; round++) {
                        for (int k = 0; k < paths.size(); k++) {
                            // each round starts at another path: no path always follows the same one (the garbage and
                            // cache state a path leaves behind land on the next)
                            int i = (k + round * 5) % paths.size();
                            long cpu0 = processCpuNanos();
                            times[i][round] = run(paths.get(i), threads, per);
                            cpu[i][round] = (processCpuNanos() - cpu0) / 1e6 / (threads * per);
                        }
                    }
                    double jdbc = median(times[0]);
                    double frontier = median(times[1]);
                    double zlib = median(times[2]);
                    double fromKept = median(times[3]);
                    double plain = median(times[4]);
                    double pieces = median(times[5]);
                    double wholeAnswer = median(times[6]);
                    System.out.printf("BENCH %s likeLuis1iov %d conn: a distinct query each fetch (another time inside the "
                            + "IOV), the same rows: JDBC %.1f ms/fetch, Frontier BLOBzip5 with the compressed text reused by "
                            + "record content %.1f ms/fetch, ratio %.2f (target <= 1.3), JVM CPU %.1f ms vs %.1f ms%n", b,
                            threads, median(times[9]), median(times[10]), median(times[10]) / median(times[9]),
                            median(cpu[10]), median(cpu[9]));
                    System.out.printf("BENCH %s likeLuis1iov %d conn: JDBC fetching 500 rows a time %.1f ms/fetch, %d "
                            + "rows a time %.1f ms/fetch; BLOBzip5 split at close whatever the load %.1f ms/fetch, ratio "
                            + "%.2f, JVM CPU %.1f ms%n", b, threads, jdbc, FetchSizing.size(95), median(times[7]),
                            median(times[8]), median(times[8]) / jdbc, median(cpu[8]));
                    System.out.printf("BENCH %s likeLuis1iov %d conn: JDBC %.1f ms/fetch, Frontier BLOBzip5 computed %.1f "
                            + "ms/fetch, ratio %.2f (target <= 1.3); with libdeflate %.1f ms/fetch, ratio %.2f; kept answer %.1f ms/fetch, ratio %.2f; uncompressed BLOB "
                            + "computed %.1f ms/fetch, ratio %.2f (response %d bytes base64); BLOBzip5 by %s; by java.util.zip "
                            + "%.1f ms/fetch, ratio %.2f; in pieces %.1f ms/fetch, ratio %.2f; whole, never "
                            + "split %.1f ms/fetch, ratio %.2f%n", b,
                            threads, jdbc, frontier, frontier / jdbc, median(times[11]), median(times[11]) / jdbc, fromKept,
                            fromKept / jdbc, plain, plain / jdbc, viaFrontier.call(),
                            BlobEncoder.deflateLibrary(5), zlib,
                            zlib / jdbc, pieces, pieces / jdbc, wholeAnswer, wholeAnswer / jdbc);
                    // CPU time of this JVM per fetch (service, JDBC driver and HTTP client; SQLite runs in it too,
                    // PostgreSQL's backend does not): less moved by other work on the machine than wall time
                    System.out.printf("BENCH %s likeLuis1iov %d conn, JVM CPU per fetch: JDBC %.1f ms; BLOBzip5 "
                            + "%.1f ms (%.2f); by java.util.zip %.1f ms (%.2f); uncompressed BLOB %.1f ms (%.2f); "
                            + "in pieces %.1f ms (%.2f); whole, never split %.1f ms (%.2f)%n",
                            b, threads, median(cpu[0]), median(cpu[1]), median(cpu[1]) / median(cpu[0]), median(cpu[2]),
                            median(cpu[2]) / median(cpu[0]), median(cpu[4]), median(cpu[4]) / median(cpu[0]),
                            median(cpu[5]), median(cpu[5]) / median(cpu[0]), median(cpu[6]), median(cpu[6]) / median(cpu[0]));
                }
            }
        }
    }

    /** Each worker's HTTP connection, kept open from fetch to fetch as frontier_client keeps it; closed by run. */
    private static final ThreadLocal<RawHttp.Persistent> CONNECTION = new ThreadLocal<>();
    private static final java.util.Queue<RawHttp.Persistent> OPEN = new java.util.concurrent.ConcurrentLinkedQueue<>();

    private static RawHttp.Persistent connection(int port) {
        RawHttp.Persistent c = CONNECTION.get();
        if (c == null || c.port() != port) { // the main thread's outlives one test's server
            c = new RawHttp.Persistent(port);
            CONNECTION.set(c);
            OPEN.add(c);
        }
        return c;
    }

    /** Raw JDBC: the rows of {@code sql} read as Strings through the store's read pool, {@code fetchSize} a time. */
    private static Callable<Long> jdbc(IovStore store, String sql, int fetchSize) {
        return () -> {
            try (Connection c = store.database().readPool().getConnection();
                 PreparedStatement ps = c.prepareStatement(sql)) {
                ps.setFetchSize(fetchSize);
                long n = 0;
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        for (int i = 1; i <= 4; i++) {
                            String v = rs.getString(i);
                            n += v == null ? 0 : v.length();
                        }
                    }
                }
                c.rollback();
                return n;
            }
        };
    }

    /**
     * A fetch run with the deflate properties set to {@code way} and {@code library} ("": unset) for all its
     * concurrent workers, by {@link #run}.
     */
    private record Deflating(String way, String library, Callable<Long> fetch) implements Callable<Long> {
        @Override
        public Long call() throws Exception {
            return fetch.call();
        }
    }

    private static Callable<Long> withDeflate(String way, Callable<Long> fetch) {
        return new Deflating(way, "", fetch);
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
                .getOperatingSystemMXBean()).getProcessCpuTime();
    }

    private static double median(double[] values) {
        double[] v = values.clone();
        java.util.Arrays.sort(v);
        return v[v.length / 2];
    }

    /** Mean wall time per fetch in ms over {@code threads} concurrent workers doing {@code per} fetches each. */
    private static double run(Callable<Long> fetch, int threads, int per) throws Exception {
        if (fetch instanceof Deflating d) {
            if (!d.way().isEmpty()) {
                System.setProperty(BlobEncoder.DEFLATE_PROPERTY, d.way());
            }
            if (!d.library().isEmpty()) {
                System.setProperty(NativeDeflate.LIBRARY_PROPERTY, d.library());
            }
        }
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            long t0 = System.nanoTime();
            List<Future<Long>> fs = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                fs.add(pool.submit(() -> {
                    long sum = 0;
                    for (int i = 0; i < per; i++) {
                        sum += fetch.call();
                    }
                    return sum;
                }));
            }
            for (Future<Long> f : fs) {
                assertThat(f.get()).isPositive();
            }
            long total = System.nanoTime() - t0;
            return total / 1e6 / (threads * per) * threads; // latency per fetch as seen by one worker
        } finally {
            pool.shutdownNow();
            for (RawHttp.Persistent c; (c = OPEN.poll()) != null; ) {
                c.close();
            }
            System.clearProperty(BlobEncoder.DEFLATE_PROPERTY);
            System.clearProperty(NativeDeflate.LIBRARY_PROPERTY);
        }
    }
}
