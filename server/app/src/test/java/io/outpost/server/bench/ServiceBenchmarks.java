package io.outpost.server.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.outpost.server.cache.Catalog;
import io.outpost.server.support.RunningService;
import io.outpost.server.support.WireDecoder;
import io.outpost.store.IovStore;
import io.outpost.store.db.BrowseSpec;
import io.outpost.store.model.ChannelSelection;
import io.outpost.store.model.Node;
import io.outpost.store.model.ValidityKey;
import io.outpost.store.read.IovReader;
import io.outpost.store.workload.Workload;
import io.outpost.testkit.TempDirs;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The service's benchmarks (docs/benchmarks.md); each prints ratios measured side by side in one run.
 * Run: {@code ./mvnw -q -Pbenchmark test -pl server/app} (needs nginx and wrk: {@code ./outpost bench} installs them).
 */
@Tag("benchmark")
class ServiceBenchmarks {
    static final String AT = "/v1/bin/at/HEAD/" + (Workload.T0 + 1) + "/all";

    static void report(String line) {
        System.out.println("BENCHMARK " + line);
    }

    private static RunningService start(boolean coolBrowse, String... extra) throws Exception {
        List<String> args = new ArrayList<>(List.of("--outpost.demo-data=false", "--logging.level.outpost.access=warn"));
        args.addAll(List.of(extra));
        RunningService svc = RunningService.startSqliteDemo(args.toArray(String[]::new));
        BenchData.load(svc.bean(IovStore.class), coolBrowse);
        svc.bean(Catalog.class).refresh();
        return svc;
    }

    /** likeLuis1iov (10k channels at t) with every request a cache miss, 20 connections. */
    @Test
    void coldPathLikeLuis() throws Exception {
        assumeTrue(ExternalTools.available("wrk"), "wrk is not installed (./outpost bench installs it)");
        try (RunningService svc = start(false)) {
            // Every request asks at a different key inside the same IOV: same rows, distinct URL, so a cache miss.
            ExternalTools.Expected luis = luisAnswer(svc);
            verifyMisses(svc, 20, luis);
            double before = svc.metric("outpost_cache_loads_total");
            double heldBefore = svc.metric("outpost_rows_answers_total");
            double rate = missesPerSecond(svc, 2, 20, 10, luis);
            double loads = svc.metric("outpost_cache_loads_total") - before;
            double fromHeld = svc.metric("outpost_rows_answers_total") - heldBefore;
            long t0 = System.nanoTime();
            IovStore store = svc.bean(IovStore.class);
            Node f = store.folder(BenchData.LUIS);
            int reps = 20;
            for (int i = 0; i < reps; i++) {
                long[] n = {0};
                store.browse(IovReader.spec(f, store.layer(f, null), Workload.T0 + 1 + i, Workload.T0 + 1 + i,
                        ChannelSelection.all()), iov -> n[0]++);
                assertThat(n[0]).isEqualTo(10_000);
            }
            double jdbcMs = (System.nanoTime() - t0) / 1e6 / reps;
            // every timed request a distinct URL: each one computed an answer (a few may have finished after the run)
            assertThat(loads).as("answers computed during the run").isGreaterThanOrEqualTo(rate * 10 * 0.95);
            report(String.format("cold path likeLuis1iov (10k rows, SQLite), 20 connections, every request a miss: %.1f "
                    + "req/s (%.0f answers computed, %.0f of them from held rows); direct JDBC of the same rows, one "
                    + "connection: %.1f ms per query", rate, loads, fromHeld, jdbcMs));
        }
    }

    /** Bodies within 1 % of {@code bytes}: an error or a refusal is far shorter than any answer timed here. */
    private static ExternalTools.Expected around(long bytes) {
        return new ExternalTools.Expected(bytes * 99 / 100, bytes * 101 / 100);
    }

    /** A likeLuis1iov path inside its IOV whose key no wrk script asks (their key spaces start at 10^7 after it). */
    private static final String LUIS_PROBE = "/v1/bin/at/HEAD/" + (Workload.T0 / 100_000_000_000L) + "00000000001/all"
            + BenchData.LUIS;

    /** What a likeLuis1iov answer at a key inside its IOV must be: 10k decoded rows, the probe's length within 1 %. */
    private static ExternalTools.Expected luisAnswer(RunningService svc) throws Exception {
        var probe = svc.get(LUIS_PROBE);
        assertThat(probe.statusCode()).isEqualTo(200);
        assertThat(WireDecoder.decode(probe.body()).rows()).hasSize(10_000);
        return around(probe.body().length);
    }

    /** Numbers the wrk scripts of distinct keys, so that no two runs ask the same URL (0: the probe's key). */
    private static final java.util.concurrent.atomic.AtomicInteger KEY_SPACES = new java.util.concurrent.atomic.AtomicInteger();

    /**
     * A wrk script asking likeLuis1iov at a different key of the same IOV on every request (same rows, a miss each),
     * in a key space of its own: key T0 + (space * 4 + thread) * 10^7 + n. Each wrk thread runs the script in a Lua
     * state of its own, where setup's {@code thread:set} makes {@code id} a global.
     */
    private static Path distinctLuisUrls() throws java.io.IOException {
        int space = KEY_SPACES.incrementAndGet();
        assertThat(space).as("key spaces left inside 10^11").isLessThan(2_000);
        Path lua = Files.createTempFile("distinct", ".lua");
        Files.writeString(lua, "threads_made = 0\n"
                + "function setup(thread) threads_made = threads_made + 1; thread:set('id', threads_made) end\n"
                + "n = 0\n"
                + "function request() n = n + 1\n return wrk.format('GET', '/v1/bin/at/HEAD/" + (Workload.T0 / 100_000_000_000L)
                + "' .. string.format('%011d', (" + space + " * 4 + id) * 10000000 + n) .. '/all" + BenchData.LUIS
                + "') end\n");
        return lua;
    }

    /** Answers per second of likeLuis1iov at keys no request asked before (see {@link #distinctLuisUrls}). */
    private static double missesPerSecond(RunningService svc, int threads, int conns, int seconds,
                                          ExternalTools.Expected expected) throws Exception {
        Path lua = distinctLuisUrls();
        try {
            return ExternalTools.wrk(svc.url("/"), threads, conns, seconds, lua, expected);
        } finally {
            Files.deleteIfExists(lua);
        }
    }

    /** Checks every response of a short run of likeLuis1iov misses (keys of their own). */
    private static void verifyMisses(RunningService svc, int conns, ExternalTools.Expected expected) throws Exception {
        Path lua = distinctLuisUrls();
        try {
            ExternalTools.verify(svc.url("/"), conns, lua, expected);
        } finally {
            Files.deleteIfExists(lua);
        }
    }

    /** Raw JDBC fetches of likeLuis1iov's 10k rows per second, by {@code threads} threads on the service's pool. */
    private static double jdbcFetchesPerSecond(IovStore store, Node f, int threads, double seconds) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            long end = System.nanoTime() + (long) (seconds * 1e9);
            long t0 = System.nanoTime();
            List<Future<Long>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                long base = Workload.T0 + 1 + t * 1_000_000L;
                done.add(pool.submit(() -> {
                    long fetches = 0;
                    while (System.nanoTime() < end) {
                        long[] n = {0};
                        store.browse(IovReader.spec(f, store.layer(f, null), base + fetches, base + fetches,
                                ChannelSelection.all()), iov -> n[0]++);
                        assertThat(n[0]).isEqualTo(10_000);
                        fetches++;
                    }
                    return fetches;
                }));
            }
            long total = 0;
            for (Future<Long> d : done) {
                total += d.get(5, TimeUnit.MINUTES);
            }
            return total / ((System.nanoTime() - t0) / 1e9);
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * The cold path on PostgreSQL: likeLuis1iov (10k rows) at a distinct URL per request (every request an answer-cache
     * miss), answered from held rows and, by a second service on the same database, from the database only; against
     * raw JDBC fetches of the same rows through the service's own pool; at 1 and 20 connections, slices interleaved.
     */
    @Test
    void coldPathPostgresAgainstJdbc() throws Exception {
        coldPathAgainstJdbc("PostgreSQL", io.outpost.testkit.PostgresServer.shared().createDatabase("bench_cold"),
                "postgres", "VACUUM ANALYZE");
    }

    /** The same on MariaDB. */
    @Test
    void coldPathMariaDbAgainstJdbc() throws Exception {
        coldPathAgainstJdbc("MariaDB", io.outpost.testkit.MariaDbServer.shared().createDatabase("bench_cold"), "root",
                null); // InnoDB keeps its statistics itself
    }

    private void coldPathAgainstJdbc(String database, String url, String user, String analyze) throws Exception {
        assumeTrue(ExternalTools.available("wrk"), "wrk is not installed (./outpost bench installs it)");
        try (IovStore loader = IovStore.open(io.outpost.store.db.DatabaseConfig.of(url, user, ""))) {
            BenchData.load(loader, false);
        }
        if (analyze != null) {
            try (var c = java.sql.DriverManager.getConnection(url, user, ""); var st = c.createStatement()) {
                st.execute(analyze); // as after any bulk load
            }
        }
        String[] common = {"--outpost.database.user=" + user, "--outpost.demo-data=false",
            "--logging.level.outpost.access=warn", "--outpost.database.read-pool-size=20"};
        try (RunningService held = RunningService.start(url, common);
             RunningService dbOnly = RunningService.start(url, concat(common, "--outpost.rows.enabled=false"))) {
            IovStore store = held.bean(IovStore.class);
            Node f = store.folder(BenchData.LUIS);
            String probe = LUIS_PROBE;
            byte[] heldBody = held.get(probe).body();
            assertThat(WireDecoder.decode(heldBody).rows()).hasSize(10_000);
            assertThat(dbOnly.get(probe).body()).as("same answer from both").isEqualTo(heldBody);
            ExternalTools.Expected luis = around(heldBody.length);
            for (RunningService s : List.of(held, dbOnly)) { // warm-up: JIT, pools, the held rows' first build
                missesPerSecond(s, 2, 20, 3, luis);
                verifyMisses(s, 20, luis); // then every answer of a short run checked (1 s: warm services only)
            }
            jdbcFetchesPerSecond(store, f, 20, 3);
            for (int conns : new int[] {1, 20}) {
                int threads = Math.min(2, conns);
                double jdbc = 0;
                double fromRows = 0;
                double fromDb = 0;
                int slices = 3;
                for (int slice = 0; slice < slices; slice++) {
                    jdbc += jdbcFetchesPerSecond(store, f, conns, 3) / slices;
                    fromRows += missesPerSecond(held, threads, conns, 3, luis) / slices;
                    fromDb += missesPerSecond(dbOnly, threads, conns, 3, luis) / slices;
                }
                report(String.format("cold path " + database + " likeLuis1iov (10k rows), %d connection(s), every request a "
                        + "distinct URL: raw JDBC %.1f fetches/s; held rows %.1f answers/s, time ratio %.2f (target <= 0.35);"
                        + " database only %.1f answers/s, time ratio %.2f", conns, jdbc, fromRows, jdbc / fromRows, fromDb,
                        jdbc / fromDb));
            }
            assertThat(held.metric("outpost_rows_builds_total")).as("one build of the unchanged folder").isLessThan(3);
        }
    }

    private static String[] concat(String[] a, String... b) {
        String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    /** coolBrowse (200k IOVs) over HTTP, cold, vs direct JDBC of the same rows, same run. */
    @Test
    void coolBrowseOverHttpAgainstJdbc() throws Exception {
        try (RunningService svc = start(true, "--outpost.cache.codec=" + System.getProperty("codec", "zstd"))) {
            IovStore store = svc.bean(IovStore.class);
            Node f = store.folder(BenchData.BROWSE);
            BrowseSpec spec = IovReader.spec(f, store.layer(f, null), 0, ValidityKey.MAX, ChannelSelection.all());
            HttpClient http = HttpClient.newHttpClient();
            double bestHttp = Double.MAX_VALUE;
            double bestDecode = Double.MAX_VALUE;
            double bestJdbc = Double.MAX_VALUE;
            long bytes = 0;
            for (int rep = 0; rep < 6; rep++) {
                long t0 = System.nanoTime();
                long[] n = {0};
                store.browse(spec, iov -> n[0]++);
                bestJdbc = Math.min(bestJdbc, (System.nanoTime() - t0) / 1e6);
                assertThat(n[0]).isEqualTo(200_000);
                // a distinct URL for the same rows: a cold answer every time
                String url = svc.url("/v1/bin/browse/HEAD/0/" + (ValidityKey.MAX - rep) + "/all/cs" + BenchData.BROWSE);
                t0 = System.nanoTime();
                HttpResponse<byte[]> cold = http.send(HttpRequest.newBuilder(URI.create(url)).build(),
                        HttpResponse.BodyHandlers.ofByteArray());
                bestHttp = Math.min(bestHttp, (System.nanoTime() - t0) / 1e6);
                assertThat(cold.statusCode()).isEqualTo(200);
                byte[] body = cold.body();
                t0 = System.nanoTime();
                assertThat(WireDecoder.decode(body).rows()).hasSize(200_000);
                bestDecode = Math.min(bestDecode, (System.nanoTime() - t0) / 1e6);
                bytes = body.length;
            }
            // where the time goes: the same answer again (in memory: transfer only), and query + encoding in-process
            String hot = svc.url("/v1/bin/browse/HEAD/0/" + ValidityKey.MAX + "/all/cs" + BenchData.BROWSE);
            byte[] hotBody = http.send(HttpRequest.newBuilder(URI.create(hot)).build(),
                    HttpResponse.BodyHandlers.ofByteArray()).body();
            assertThat(WireDecoder.decode(hotBody).rows()).hasSize(200_000);
            double bestTransfer = Double.MAX_VALUE;
            double bestLoad = Double.MAX_VALUE;
            io.outpost.server.query.QueryService service = svc.bean(io.outpost.server.query.QueryService.class);
            for (int rep = 0; rep < 4; rep++) {
                long t0 = System.nanoTime();
                HttpResponse<byte[]> again = http.send(HttpRequest.newBuilder(URI.create(hot)).build(),
                        HttpResponse.BodyHandlers.ofByteArray());
                bestTransfer = Math.min(bestTransfer, (System.nanoTime() - t0) / 1e6);
                assertThat(again.statusCode()).isEqualTo(200);
                assertThat(again.body()).isEqualTo(hotBody);
                t0 = System.nanoTime();
                var loaded = service.load(io.outpost.server.query.QueryParser.parse("/v1/bin/browse/HEAD/0/"
                        + (ValidityKey.MAX - 100 - rep) + "/all/cs" + BenchData.BROWSE), f, "bench");
                bestLoad = Math.min(bestLoad, (System.nanoTime() - t0) / 1e6);
                assertThat(loaded.rows()).isEqualTo(200_000);
            }
            report(String.format("coolBrowse 200k IOVs: over HTTP, cold, %.0f ms (%d bytes); direct JDBC %.0f ms; ratio %.2f "
                    + "(target <= 1.25); of which query + encoding %.0f ms, transfer of the answer from memory %.0f ms; "
                    + "client decoding afterwards %.0f ms", bestHttp, bytes, bestJdbc, bestHttp / bestJdbc, bestLoad,
                    bestTransfer, bestDecode));
        }
    }

    /** 100 concurrent clients fetching different ~1 MB answers from a service limited to a 512 MB heap. */
    @Test
    void hundredClientsOfMegabyteAnswersIn512MegabyteHeap() throws Exception {
        Path jar = Files.list(Path.of("target")).filter(p -> p.getFileName().toString().endsWith("-exec.jar")).findFirst()
                .orElse(null);
        assumeTrue(jar != null, "run 'mvn package' first: the -exec.jar runs the service in its own 512 MB JVM");
        // the database, the service's log and its Tomcat work folder all live in one folder removed at the end
        Path dir = TempDirs.create("outpost-mem");
        Path db = dir.resolve("mem.db");
        Process svc = null;
        try {
            try (IovStore store = IovStore.open(io.outpost.store.db.DatabaseConfig.of("jdbc:sqlite:" + db))) {
                BenchData.load(store, false);
            }
            int port = ExternalTools.freePort();
            svc = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx512m",
                    "-jar", jar.toString(), "--server.port=" + port, "--outpost.database.url=jdbc:sqlite:" + db,
                    "--outpost.demo-data=false", "--logging.level.outpost.access=warn",
                    "--outpost.database.connection-timeout=60s", "--server.tomcat.basedir=" + dir.resolve("tomcat"))
                    .redirectErrorStream(true).redirectOutput(dir.resolve("service.log").toFile()).start();
            HttpClient http = HttpClient.newBuilder().executor(Executors.newFixedThreadPool(8)).build();
            String base = "http://127.0.0.1:" + port;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (true) {
                try {
                    if (http.send(HttpRequest.newBuilder(URI.create(base + "/actuator/health")).build(),
                            HttpResponse.BodyHandlers.ofString()).statusCode() == 200) {
                        break;
                    }
                } catch (java.io.IOException notYet) {
                    assertThat(svc.isAlive()).as("service process alive").isTrue();
                }
                assertThat(System.nanoTime()).as("service started within 60 s").isLessThan(deadline);
                Thread.onSpinWait();
            }
            // every answer is the same 10k rows at another key: the probe's length within 1 %, never an error
            String probeUrl = base + "/v1/json/at/HEAD/" + (Workload.T0 + 1) + "/all" + BenchData.LUIS;
            HttpResponse<byte[]> probe = http.send(HttpRequest.newBuilder(URI.create(probeUrl)).build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            assertThat(probe.statusCode()).isEqualTo(200);
            ExternalTools.Expected expected = around(probe.body().length);
            ExecutorService clients = Executors.newFixedThreadPool(100);
            int perClient = 5;
            long t0 = System.nanoTime();
            List<Future<Long>> results = new ArrayList<>();
            for (int c = 0; c < 100; c++) {
                int client = c;
                results.add(clients.submit(() -> {
                    long got = 0;
                    for (int i = 0; i < perClient; i++) {
                        String url = base + "/v1/json/at/HEAD/" + (Workload.T0 + 1 + client * 1000L + i) + "/all" + BenchData.LUIS;
                        HttpResponse<byte[]> r = http.send(HttpRequest.newBuilder(URI.create(url)).build(),
                                HttpResponse.BodyHandlers.ofByteArray());
                        assertThat(r.statusCode()).isEqualTo(200);
                        assertThat((long) r.body().length).isBetween(expected.minBody(), expected.maxBody());
                        got += r.body().length;
                    }
                    return got;
                }));
            }
            long total = 0;
            for (Future<Long> f : results) {
                total += f.get(10, TimeUnit.MINUTES);
            }
            double sec = (System.nanoTime() - t0) / 1e9;
            clients.shutdown();
            assertThat(svc.isAlive()).isTrue();
            report(String.format("memory: 100 concurrent clients x %d different answers of %.2f MB each, service -Xmx512m: "
                    + "0 errors, %.1f answers/s, %.1f MB/s", perClient, total / 1e6 / (100.0 * perClient),
                    100.0 * perClient / sec, total / 1e6 / sec));
        } finally {
            if (svc != null) {
                svc.destroy();
                if (!svc.waitFor(30, TimeUnit.SECONDS)) {
                    svc.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            }
            TempDirs.deleteQuietly(dir);
        }
    }
}
