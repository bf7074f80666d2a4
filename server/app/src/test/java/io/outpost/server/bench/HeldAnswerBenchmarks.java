package io.outpost.server.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.server.support.RunningService;
import io.outpost.server.support.WireDecoder;
import io.outpost.store.IovStore;
import io.outpost.store.model.ChannelSelection;
import io.outpost.store.model.Iov;
import io.outpost.store.model.Node;
import io.outpost.store.read.IovReader;
import io.outpost.store.workload.Workload;
import io.outpost.testkit.PostgresServer;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The native cold answer from held rows (docs/benchmarks.md): likeLuis1iov (10,000 channels, one 50-character IOV
 * each) at a distinct at-time URL per request, by three services on one PostgreSQL database in one JVM, slices
 * rotating: rows encoded value by value per answer ({@code outpost.rows.encoded-rows=false}, the path before rows
 * were held encoded), rows held encoded with every answer compressed ({@code outpost.rows.keep-answers=false}), and
 * the default (rows held encoded, each layer's latest answer kept and sent again for the same content). Every timed answer is checked: status 200 and the bytes
 * of the probe answer, whose rows were decoded and compared with the database's. Service CPU per answer is the
 * process's CPU time over a slice less the client threads' own.
 * {@code -Dbench.jfr=DIR} also records one slice of each path at 20 connections with JFR into DIR.
 */
@Tag("benchmark")
class HeldAnswerBenchmarks {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    /** Keys inside likeLuis1iov's IOV that no other benchmark asks (the wrk scripts' key spaces end below 9 * 10^10). */
    private static final AtomicLong NEXT_KEY = new AtomicLong(90_000_000_000L);
    private static final String KEY_PREFIX = "/v1/bin/at/HEAD/" + (Workload.T0 / 100_000_000_000L);

    private record Slice(double answersPerSecond, double serviceCpuMsPerAnswer) {
    }

    @Test
    void encodedRowsAgainstRowByRowPostgres() throws Exception {
        String url = PostgresServer.shared().createDatabase("bench_held");
        try (IovStore loader = IovStore.open(io.outpost.store.db.DatabaseConfig.of(url, "postgres", ""))) {
            BenchData.load(loader, false);
        }
        try (var c = java.sql.DriverManager.getConnection(url, "postgres", ""); var st = c.createStatement()) {
            st.execute("VACUUM ANALYZE"); // as after any bulk load
        }
        String[] common = {"--outpost.database.user=postgres", "--outpost.demo-data=false",
            "--logging.level.outpost.access=warn"};
        try (RunningService kept = RunningService.start(url, common);
             RunningService encoded = RunningService.start(url, concat(common, "--outpost.rows.keep-answers=false"));
             RunningService rowByRow = RunningService.start(url, concat(common, "--outpost.rows.encoded-rows=false"))) {
            List<RunningService> paths = List.of(rowByRow, encoded, kept);
            List<String> names = List.of("row-by-row", "encoded", "kept");
            byte[] expected = checkedProbe(kept);
            for (RunningService s : paths) {
                assertThat(fetch(s, nextPath())).as("the same bytes from every path").isEqualTo(expected);
                run(s, 20, 3, expected); // warm-up: JIT, pools, the held rows' first build
            }
            String jfr = System.getProperty("bench.jfr");
            for (int conns : new int[] {1, 20}) {
                int slices = 3;
                double[][] sum = new double[paths.size()][2];
                for (int slice = 0; slice < slices; slice++) {
                    for (int k = 0; k < paths.size(); k++) {
                        int p = (k + slice) % paths.size(); // each slice starts with another path
                        RunningService s = paths.get(p);
                        Slice r = jfr != null && conns == 20 && slice == 0
                                ? recorded(Path.of(jfr, names.get(p) + ".jfr"), () -> run(s, conns, 3, expected))
                                : run(s, conns, 3, expected);
                        sum[p][0] += r.answersPerSecond() / slices;
                        sum[p][1] += r.serviceCpuMsPerAnswer() / slices;
                    }
                }
                double[] old = sum[0];
                double[] now = sum[2];
                ServiceBenchmarks.report(String.format("native cold answer likeLuis1iov (10k rows, PostgreSQL, held rows), "
                        + "%d connection(s), every request a distinct URL: rows encoded per answer %.1f answers/s, "
                        + "%.2f ms service CPU per answer; rows held encoded, every answer compressed %.1f answers/s, "
                        + "%.2f ms; held encoded and the latest answer kept %.1f answers/s, %.2f ms; kept vs per answer: "
                        + "answers/s ratio %.2f (target >= 2.5), CPU ratio %.2f, %s", conns, old[0], old[1], sum[1][0],
                        sum[1][1], now[0], now[1], now[0] / old[0], now[1] / old[1],
                        now[1] <= 5 ? "<= 5 ms: met" : "> 5 ms: NOT met"));
            }
        }
    }

    /**
     * The probe answer's bytes, after checking its rows against the database's: 10,000 rows, each with the channel,
     * since, until and payload the store's own browse gives at that key.
     */
    private static byte[] checkedProbe(RunningService svc) throws Exception {
        String path = nextPath();
        byte[] body = fetch(svc, path);
        WireDecoder.Table t = WireDecoder.decode(body);
        IovStore store = svc.bean(IovStore.class);
        Node f = store.folder(BenchData.LUIS);
        long key = Long.parseLong(path.substring("/v1/bin/at/HEAD/".length(), path.indexOf("/all")));
        List<List<String>> fromDb = new ArrayList<>();
        store.browse(IovReader.spec(f, store.layer(f, null), key, key, ChannelSelection.all()),
                iov -> fromDb.add(strings(iov)));
        assertThat(fromDb).hasSize(10_000);
        assertThat(t.rows().stream().map(r -> r.stream().map(String::valueOf).toList()).toList()).isEqualTo(fromDb);
        return body;
    }

    private static List<String> strings(Iov iov) {
        List<String> out = new ArrayList<>(List.of(String.valueOf(iov.channelId()), String.valueOf(iov.since()),
                String.valueOf(iov.until())));
        for (Object v : iov.payload()) {
            out.add(String.valueOf(v));
        }
        return out;
    }

    private static String nextPath() {
        return KEY_PREFIX + String.format("%011d", NEXT_KEY.incrementAndGet()) + "/all" + BenchData.LUIS;
    }

    private static byte[] fetch(RunningService svc, String path) throws Exception {
        var r = svc.get(path);
        assertThat(r.statusCode()).as(path).isEqualTo(200);
        return r.body();
    }

    /**
     * {@code conns} clients, each on a keep-alive connection of its own, asking distinct URLs for {@code seconds};
     * any answer other than 200 with the expected bytes fails the benchmark.
     */
    private static Slice run(RunningService svc, int conns, int seconds, byte[] expected) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(conns);
        try {
            long cpu0 = OS.getProcessCpuTime();
            long t0 = System.nanoTime();
            long end = t0 + seconds * 1_000_000_000L;
            List<Future<long[]>> done = new ArrayList<>();
            for (int i = 0; i < conns; i++) {
                done.add(pool.submit(() -> client(svc, end, expected)));
            }
            long answers = 0;
            long clientCpu = 0;
            for (Future<long[]> d : done) {
                long[] r = d.get(5, TimeUnit.MINUTES);
                answers += r[0];
                clientCpu += r[1];
            }
            double elapsed = (System.nanoTime() - t0) / 1e9;
            long serviceCpu = OS.getProcessCpuTime() - cpu0 - clientCpu;
            assertThat(answers).as("answers in the slice").isPositive();
            return new Slice(answers / elapsed, serviceCpu / 1e6 / answers);
        } finally {
            pool.shutdownNow();
        }
    }

    /** One client's loop; returns its answers and its own CPU time (reading and comparing them). */
    private static long[] client(RunningService svc, long end, byte[] expected) throws IOException {
        long cpu0 = THREADS.getCurrentThreadCpuTime();
        byte[] buf = new byte[expected.length + 1];
        long answers = 0;
        while (System.nanoTime() < end) {
            String path = nextPath();
            HttpURLConnection c = (HttpURLConnection) URI.create(svc.url(path)).toURL().openConnection();
            int status = c.getResponseCode();
            if (status != 200) {
                throw new AssertionError(path + ": status " + status);
            }
            int n = 0;
            try (InputStream in = c.getInputStream()) {
                for (int k; n < buf.length && (k = in.read(buf, n, buf.length - n)) > 0; ) {
                    n += k;
                }
                if (n == buf.length || in.read() >= 0) {
                    throw new AssertionError(path + ": longer than the expected " + expected.length + " bytes");
                }
            }
            if (!Arrays.equals(buf, 0, n, expected, 0, expected.length)) {
                throw new AssertionError(path + ": " + n + " bytes, not the expected answer");
            }
            answers++;
        }
        return new long[] {answers, THREADS.getCurrentThreadCpuTime() - cpu0};
    }

    @FunctionalInterface
    private interface Timed {
        Slice run() throws Exception;
    }

    private static Slice recorded(Path file, Timed timed) throws Exception {
        try (Recording r = new Recording(Configuration.getConfiguration("profile"))) {
            r.start();
            Slice s = timed.run();
            r.stop();
            r.dump(file);
            return s;
        }
    }

    private static String[] concat(String[] a, String... b) {
        String[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
