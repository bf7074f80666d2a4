package io.outpost.server.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.server.support.RunningService;
import io.outpost.server.support.WireDecoder;
import io.outpost.store.IovStore;
import io.outpost.store.workload.Workload;
import io.outpost.testkit.PostgresServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
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
 * the default (rows held encoded, each layer's latest answer kept and sent again for the same content); the default
 * also with four channel selections asked in turn, so that an answer's rows are not the latest answer's and the
 * kept answer cannot be sent (the encoded path plus the cost of keeping). Every timed answer is checked: status 200
 * and the bytes of the probe answer, whose rows were decoded and compared with the database's (the other
 * selections' rows with the probe's that they select). Service CPU per answer is the process's CPU time over a
 * slice less the client threads' own.
 * {@code -Dbench.jfr=DIR} also records one slice of each path at 20 connections with JFR into DIR.
 */
@Tag("benchmark")
class HeldAnswerBenchmarks {
        /** Keys inside likeLuis1iov's IOV that no other benchmark asks (the wrk scripts' key spaces end below 9 * 10^10). */
    private static final AtomicLong NEXT_KEY = new AtomicLong(90_000_000_000L);
    private static final String KEY_PREFIX = "/v1/bin/at/HEAD/" + (Workload.T0 / 100_000_000_000L);

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
            byte[] expected = checkedProbe(kept);
            Asked all = new Asked(new String[] {"/all"}, new byte[][] {expected});
            Asked differing = differing(kept, expected);
            // the kept path asked four channel selections in turn: the next answer's rows are not the latest's
            List<Measured> paths = List.of(new Measured("row-by-row", rowByRow, all),
                    new Measured("encoded", encoded, all), new Measured("kept", kept, all),
                    new Measured("kept, rows differing", kept, differing));
            for (Measured p : paths) {
                for (int i = 0; i < p.asked().selections().length; i++) {
                    assertThat(fetch(p.service(), nextPath(p.asked().selections()[i])))
                            .as("the same bytes from every path").isEqualTo(p.asked().bodies()[i]);
                }
                run(p, 20, 3); // warm-up: JIT, pools, the held rows' first build
            }
            String jfr = System.getProperty("bench.jfr");
            for (int conns : new int[] {1, 20}) {
                int slices = 3;
                double[][] sum = new double[paths.size()][2];
                for (int slice = 0; slice < slices; slice++) {
                    for (int k = 0; k < paths.size(); k++) {
                        int i = (k + slice) % paths.size(); // each slice starts with another path
                        Measured p = paths.get(i);
                        TimedClients.Slice r = jfr != null && conns == 20 && slice == 0
                                ? recorded(Path.of(jfr, p.name().replaceAll("\\W+", "-") + ".jfr"),
                                        () -> run(p, conns, 3))
                                : run(p, conns, 3);
                        sum[i][0] += r.answersPerSecond() / slices;
                        sum[i][1] += r.serviceCpuMsPerAnswer() / slices;
                    }
                }
                double[] old = sum[0];
                double[] now = sum[2];
                double[] differ = sum[3];
                ServiceBenchmarks.report(String.format("native cold answer likeLuis1iov (10k rows, PostgreSQL, "
                        + "held rows), %d connection(s), every request a distinct URL: rows encoded per answer "
                        + "%.1f answers/s, %.2f ms service CPU per answer; rows held encoded, every answer compressed "
                        + "%.1f answers/s, %.2f ms; held encoded and the latest answer kept %.1f answers/s, %.2f ms; "
                        + "the same with four channel selections in turn (rows differ from the latest answer's) "
                        + "%.1f answers/s, %.2f ms; kept vs per answer: answers/s ratio %.2f (target >= 2.5), "
                        + "CPU ratio %.2f, %s; rows differing vs per answer: answers/s ratio %.2f, CPU ratio %.2f, %s",
                        conns, old[0], old[1], sum[1][0], sum[1][1], now[0], now[1], differ[0], differ[1],
                        now[0] / old[0], now[1] / old[1], met(now[1]), differ[0] / old[0], differ[1] / old[1],
                        met(differ[1])));
            }
        }
    }

    private static String met(double cpuMs) {
        return cpuMs <= 5 ? "<= 5 ms: met" : "> 5 ms: NOT met";
    }

    /** What a path's clients ask in turn: channel selections and the bytes each must answer. */
    private record Asked(String[] selections, byte[][] bodies) {
    }

    private record Measured(String name, RunningService service, Asked asked) {
    }

    /**
     * Four selections of likeLuis1iov's channels (all; all but the last; all but the first; all but the last two),
     * each answer checked against the rows of the checked probe answer of all channels that it selects.
     */
    private static Asked differing(RunningService svc, byte[] all) throws Exception {
        List<List<Object>> rows = WireDecoder.decode(all).rows();
        long first = ((Number) rows.getFirst().get(0)).longValue();
        long last = ((Number) rows.getLast().get(0)).longValue();
        String[] selections = {"/all", "/" + first + "-" + (last - 1), "/" + (first + 1) + "-" + last,
            "/" + first + "-" + (last - 2)};
        int[][] kept = {{0, rows.size()}, {0, rows.size() - 1}, {1, rows.size()}, {0, rows.size() - 2}};
        byte[][] bodies = new byte[selections.length][];
        for (int i = 0; i < selections.length; i++) {
            bodies[i] = fetch(svc, nextPath(selections[i]));
            assertThat(WireDecoder.decode(bodies[i]).rows()).as(selections[i])
                    .isEqualTo(rows.subList(kept[i][0], kept[i][1]));
        }
        return new Asked(selections, bodies);
    }

    /**
     * The probe answer's bytes, after checking its rows against the database's: 10,000 rows, each with the channel,
     * since, until and payload the store's own browse gives at that key.
     */
    private static byte[] checkedProbe(RunningService svc) throws Exception {
        String path = nextPath("/all");
        byte[] body = fetch(svc, path);
        WireDecoder.Table t = WireDecoder.decode(body);
        IovStore store = svc.bean(IovStore.class);
        long key = Long.parseLong(path.substring("/v1/bin/at/HEAD/".length(), path.indexOf("/all")));
        List<List<String>> fromDb = BenchData.rowsAt(store, BenchData.LUIS, null, key);
        assertThat(fromDb).hasSize(10_000);
        assertThat(t.rows().stream().map(r -> r.stream().map(String::valueOf).toList()).toList()).isEqualTo(fromDb);
        return body;
    }

    private static String nextPath(String selection) {
        return KEY_PREFIX + String.format("%011d", NEXT_KEY.incrementAndGet()) + selection + BenchData.LUIS;
    }

    private static byte[] fetch(RunningService svc, String path) throws Exception {
        var r = svc.get(path);
        assertThat(r.statusCode()).as(path).isEqualTo(200);
        return r.body();
    }

    /**
     * {@code conns} clients, each on a keep-alive connection of its own, asking distinct URLs for {@code seconds},
     * the path's selections in turn; any answer other than 200 with the expected bytes fails the benchmark.
     */
    private static TimedClients.Slice run(Measured p, int conns, int seconds) throws Exception {
        AtomicLong turn = new AtomicLong();
        return TimedClients.run(conns, seconds, (client, end) -> client(p, end, turn));
    }

    /** One client's loop; returns its answers (every one checked). */
    private static long client(Measured p, long end, AtomicLong turn) throws IOException {
        int longest = Arrays.stream(p.asked().bodies()).mapToInt(b -> b.length).max().orElseThrow();
        byte[] buf = new byte[longest + 1];
        long answers = 0;
        while (System.nanoTime() < end) {
            int k = (int) (turn.getAndIncrement() % p.asked().selections().length);
            byte[] expected = p.asked().bodies()[k];
            String path = nextPath(p.asked().selections()[k]);
            HttpURLConnection c = (HttpURLConnection) URI.create(p.service().url(path)).toURL().openConnection();
            int status = c.getResponseCode();
            if (status != 200) {
                throw new AssertionError(path + ": status " + status);
            }
            int n = 0;
            try (InputStream in = c.getInputStream()) {
                for (int r; n < buf.length && (r = in.read(buf, n, buf.length - n)) > 0; ) {
                    n += r;
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
        return answers;
    }

    @FunctionalInterface
    private interface Timed {
        TimedClients.Slice run() throws Exception;
    }

    private static TimedClients.Slice recorded(Path file, Timed timed) throws Exception {
        try (Recording r = new Recording(Configuration.getConfiguration("profile"))) {
            r.start();
            TimedClients.Slice s = timed.run();
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
