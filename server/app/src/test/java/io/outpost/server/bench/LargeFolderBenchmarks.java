package io.outpost.server.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.outpost.server.support.RunningService;
import io.outpost.store.IovStore;
import io.outpost.store.model.NewIov;
import io.outpost.store.model.Node;
import io.outpost.store.model.ValidityKey;
import io.outpost.store.db.DatabaseConfig;
import io.outpost.store.model.ChannelSelection;
import io.outpost.store.workload.Workload;
import io.outpost.store.workload.WorkloadGenerator;
import io.outpost.store.testing.Backends;
import io.outpost.testkit.TempDirs;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A folder of 10M IOVs (coolFlat ×10) behind the service with the held-rows budget of a 512 MB heap (64 MB), on
 * SQLite or (with {@code -Dbackend=POSTGRESQL}) on the test PostgreSQL: at-time latency over HTTP at positions spread
 * over the whole key range (the flat-time ratio, and the first 1 % of keys against the rest), and the first reads
 * after a write, which waited for a doomed attempt to hold the folder before held rows remembered that it is too
 * big. Every answer is checked (one row per channel, valid at t).
 * Run: {@code ./mvnw -Pbenchmark test -pl server/app -Dtest=LargeFolderBenchmarks} ({@code -Dscale=1} for 1M IOVs;
 * {@code -DcoolFlatDb=FILE} reuses a SQLite file made by {@code ./outpost load generate coolFlat --scale 10 --url
 * jdbc:sqlite:FILE}, to which the benchmark appends five IOVs).
 */
@Tag("benchmark")
class LargeFolderBenchmarks {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    /**
     * Rounds over every position, each position's fastest kept. At 1–2 ms an answer over HTTP, the fastest of five
     * still carried the moment's noise (the two halves of ten rounds correlated at r = 0.24 position by position), and
     * the fastest of ten still left some positions a third above the rest in one quiet run of two while the halves
     * correlated at r = 0.13: the spread was the moment's. A round costs well under a second; the folder's load, minutes.
     */
    private static final int ROUNDS = 30;

    @Test
    void atTimeOverTenMillionIovsAndReadsAfterWrites() throws Exception {
        Workload w = Workload.COOL_FLAT;
        double scale = Double.parseDouble(System.getProperty("scale", "10"));
        if (Backends.valueOf(System.getProperty("backend", "SQLITE")) == Backends.POSTGRESQL) {
            DatabaseConfig pg = Backends.POSTGRESQL.freshConfig("bench_coolflat");
            try (IovStore loader = IovStore.open(pg)) {
                new WorkloadGenerator(loader, 1).populate(w, scale, n -> { });
            }
            try (RunningService svc = RunningService.start(pg.jdbcUrl(), "--outpost.database.user=" + pg.user(),
                    "--outpost.database.password=" + pg.password(), "--outpost.demo-data=false",
                    "--logging.level.outpost.access=warn", "--outpost.rows.max-size=64MB")) {
                measure(svc, w, scale, "PostgreSQL");
            }
            return;
        }
        String given = System.getProperty("coolFlatDb");
        Path dir = TempDirs.create("outpost-large");
        try {
            Path db = given != null ? Path.of(given) : dir.resolve("coolflat.db");
            if (given == null) {
                try (IovStore loader = IovStore.open(DatabaseConfig.of("jdbc:sqlite:" + db))) {
                    new WorkloadGenerator(loader, 1).populate(w, scale, n -> { });
                }
            }
            assertThat(Files.exists(db)).as(db.toString()).isTrue();
            try (RunningService svc = RunningService.start("jdbc:sqlite:" + db, "--outpost.demo-data=false",
                    "--logging.level.outpost.access=warn", "--outpost.rows.max-size=64MB")) {
                measure(svc, w, scale, "SQLite");
            }
        } finally {
            TempDirs.delete(dir);
        }
    }

    private static void measure(RunningService svc, Workload w, double scale, String backend) throws Exception {
        String path = w.folderPath(0);
        int channels = w.channels(scale);
        int points = 100;
        int early = 20; // extra positions inside the first 1 % of keys
        double[] ms = new double[points + early];
        long[] keys = new long[points + early];
        for (int i = 0; i < points; i++) {
            keys[i] = w.keyAt(0.999 * i / (points - 1), scale);
        }
        for (int i = 0; i < early; i++) {
            keys[points + i] = w.keyAt(0.01 * i / early, scale);
        }
        Arrays.fill(ms, Double.MAX_VALUE);
        // the rounds' even and odd halves apart too: how far each position's time is its own and not the moment's
        double[][] halves = new double[2][keys.length];
        Arrays.fill(halves[0], Double.MAX_VALUE);
        Arrays.fill(halves[1], Double.MAX_VALUE);
        // each round visits the positions in another order, so that what the run's time does (warm-up, a poll, the
        // database's background work) does not line up with the keys
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < keys.length; i++) {
            order.add(i);
        }
        java.util.Random shuffle = new java.util.Random(5);
        for (int rep = 0; rep < ROUNDS; rep++) {
            java.util.Collections.shuffle(order, shuffle);
            for (int i : order) {
                long t = keys[i] + rep; // a distinct URL each time: computed, not a cache hit
                long t0 = System.nanoTime();
                checkAt(svc, path, t, channels);
                double took = (System.nanoTime() - t0) / 1e6;
                ms[i] = Math.min(ms[i], took);
                halves[rep % 2][i] = Math.min(halves[rep % 2][i], took);
            }
        }
        double fast = decile(ms, points, false);
        double slow = decile(ms, points, true);
        double[] a = Arrays.copyOf(halves[0], points);
        double[] b = Arrays.copyOf(halves[1], points);
        double firstPercent = median(Arrays.copyOfRange(ms, points, points + early));
        double elsewhere = median(Arrays.copyOfRange(ms, 2, points));

        // Reads after writes: 4 concurrent readers right after each of 5 one-IOV writes.
        IovStore store = svc.bean(IovStore.class);
        Node f = store.folder(path);
        MeterRegistry metrics = svc.bean(MeterRegistry.class);
        long[] newest = {0}; // after the newest IOV of channel 0 (a reused file may hold earlier runs' writes)
        store.browse(f, w.keyAt(0.999, scale), ValidityKey.MAX, ChannelSelection.channel(0), null,
                iov -> newest[0] = Math.max(newest[0], iov.since() + 1));
        double worstAfterWrite = 0;
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            for (int write = 0; write < 5; write++) {
                long since = newest[0] + write * w.iovLength();
                store.store(f, List.of(new NewIov(0, since, ValidityKey.MAX, write, "bench")));
                List<Future<Double>> reads = new ArrayList<>();
                for (int r = 0; r < 4; r++) {
                    long t = w.keyAt(0.5, scale) + 1000L * write + r;
                    reads.add(pool.submit(() -> {
                        long t0 = System.nanoTime();
                        checkAt(svc, path, t, channels);
                        return (System.nanoTime() - t0) / 1e6;
                    }));
                }
                for (Future<Double> r : reads) {
                    worstAfterWrite = Math.max(worstAfterWrite, r.get(120, TimeUnit.SECONDS));
                }
            }
        } finally {
            pool.shutdownNow();
        }
        double tooBig = metrics.counter("outpost.rows.too.big").count();
        double builds = metrics.counter("outpost.rows.builds").count();
        ServiceBenchmarks.report(String.format("large folder, coolFlat x%s (%,d IOVs, %s), at-time over HTTP at %d "
                        + "positions: fastest decile %.2f ms, slowest decile %.2f ms, flat-time ratio %.2f (target <= 1.3); "
                        + "median first 1 %% of keys %.2f ms vs elsewhere %.2f ms (%.2f); slowest of 20 reads right after "
                        + "5 writes %.1f ms; outpost_rows_too_big_total %.0f, builds %.0f; the rounds' halves alone: "
                        + "ratio %.2f and %.2f, their positions' times correlate r = %.2f",
                scale, w.totalIovs(scale), backend, points, fast, slow, slow / fast, firstPercent, elsewhere,
                firstPercent / elsewhere, worstAfterWrite, tooBig, builds,
                decile(a, points, true) / decile(a, points, false), decile(b, points, true) / decile(b, points, false),
                correlation(a, b)));
        assertThat(tooBig).as("the folder is found too big once").isLessThanOrEqualTo(1);
    }

    /** One at-time answer: one row per channel, each valid at t. */
    private static void checkAt(RunningService svc, String path, long t, int channels) throws Exception {
        HttpResponse<byte[]> r = svc.get("/v1/json/at/HEAD/" + t + "/all" + path);
        assertThat(r.statusCode()).as("at %d", t).isEqualTo(200);
        JsonNode body = JSON.readTree(r.body());
        assertThat(body.get("rowCount").asInt()).as("rows at %d", t).isEqualTo(channels);
        for (JsonNode row : body.get("rows")) {
            assertThat(row.get(1).asLong()).isLessThanOrEqualTo(t);
            assertThat(row.get(2).asLong()).isGreaterThan(t);
        }
    }

    /** The mean of the slowest (or fastest) tenth of the first {@code n} times. */
    private static double decile(double[] ms, int n, boolean slowest) {
        double[] sorted = Arrays.copyOf(ms, n);
        Arrays.sort(sorted);
        return Arrays.stream(sorted, slowest ? n - n / 10 : 0, slowest ? n : n / 10).average().orElseThrow();
    }

    /** Pearson's r: near 1 when the slow positions of one half are the slow ones of the other. */
    private static double correlation(double[] x, double[] y) {
        double mx = Arrays.stream(x).average().orElseThrow();
        double my = Arrays.stream(y).average().orElseThrow();
        double sxy = 0;
        double sxx = 0;
        double syy = 0;
        for (int i = 0; i < x.length; i++) {
            sxy += (x[i] - mx) * (y[i] - my);
            sxx += (x[i] - mx) * (x[i] - mx);
            syy += (y[i] - my) * (y[i] - my);
        }
        return sxy / Math.sqrt(sxx * syy);
    }

    private static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }
}
