package io.outpost.server.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.server.cache.Catalog;
import io.outpost.server.pin.State;
import io.outpost.server.pin.StateService;
import io.outpost.server.support.RunningService;
import io.outpost.store.IovStore;
import io.outpost.store.db.DatabaseConfig;
import io.outpost.store.export.SnapshotExporter;
import io.outpost.store.model.ValidityKey;
import io.outpost.store.testing.Backends;
import io.outpost.store.workload.ManyFolders;
import io.outpost.store.workload.Workload;
import io.outpost.testkit.TempDirs;
import java.io.ByteArrayOutputStream;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * 100× the folders: the manyFolders data set at scale 1 (100 folders, a global tag over 50) and at scale 100 (10,000
 * folders, a global tag over 5,000), served one after the other in the same run, with a growth ratio per figure:
 * start-up time, heap (after a full GC) and RSS after start and after serving, the state and the snapshot of the
 * global tag's subtree (time to compute, size raw and gzipped), one catalog poll, and the export of the global tag
 * over a time and a run range. Every state and snapshot answer is checked (one row per folder of the subtree, each
 * snapshot row's answer inline with one row per channel). Heap and RSS are those of the benchmark's JVM, which holds
 * the service. Run: {@code ./mvnw -Pbenchmark test -pl server/app -Dtest=ScaleBenchmarks} ({@code -Dscales=1,100},
 * {@code -Dbackend=SQLITE} for one backend only).
 */
@Tag("benchmark")
class ScaleBenchmarks {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @ParameterizedTest
    @EnumSource(value = Backends.class, names = {"SQLITE", "POSTGRESQL"})
    void manyFolders(Backends backend) throws Exception {
        String only = System.getProperty("backend");
        if (only != null && !only.equalsIgnoreCase(backend.name())) {
            return;
        }
        String[] scales = System.getProperty("scales", "1,100").split(",");
        List<Map<String, Double>> runs = new ArrayList<>();
        for (String s : scales) {
            runs.add(measure(backend, Double.parseDouble(s)));
        }
        Map<String, Double> small = runs.get(0);
        Map<String, Double> large = runs.get(runs.size() - 1);
        StringBuilder line = new StringBuilder(String.format("manyFolders (%s), scale %s -> %s (folders x%.0f):",
                backend, scales[0], scales[scales.length - 1], large.get("folders") / small.get("folders")));
        for (String k : large.keySet()) {
            line.append(String.format("%n    %-34s %12.1f -> %12.1f  (x%.1f)", k, small.get(k), large.get(k),
                    large.get(k) / small.get(k)));
        }
        ServiceBenchmarks.report(line.toString());
    }

    private static Map<String, Double> measure(Backends backend, double scale) throws Exception {
        DatabaseConfig config = backend.freshConfig("bench_scale_" + ManyFolders.folders(scale));
        try {
            return measure(config, scale);
        } finally {
            if (config.jdbcUrl().startsWith("jdbc:sqlite:")) { // 400 MB at scale 100
                TempDirs.delete(Path.of(config.jdbcUrl().substring("jdbc:sqlite:".length())).getParent());
            }
        }
    }

    private static Map<String, Double> measure(DatabaseConfig config, double scale) throws Exception {
        Map<String, Double> m = new LinkedHashMap<>();
        int n = ManyFolders.folders(scale);
        int tagged = n / 2;
        m.put("folders", (double) n);
        long t0 = System.nanoTime();
        try (IovStore loader = IovStore.open(config)) {
            new ManyFolders(loader, 7).populate(scale, i -> { });
        }
        m.put("generate s", seconds(t0));
        List<String> args = new ArrayList<>(List.of("--outpost.demo-data=false", "--logging.level.outpost.access=warn"));
        if (config.user() != null) {
            args.add("--outpost.database.user=" + config.user());
            args.add("--outpost.database.password=" + (config.password() == null ? "" : config.password()));
        }
        if (scale == Double.parseDouble(System.getProperty("scales", "1,100").split(",")[0])) {
            // warm-up: the first service in this JVM loads its classes, which later starts do not
            RunningService.start(config.jdbcUrl(), args.toArray(String[]::new)).close();
        }
        long heapBefore = heapAfterGc();
        long heapAfterStart;
        long heapAfterServing;
        t0 = System.nanoTime();
        try (RunningService svc = RunningService.start(config.jdbcUrl(), args.toArray(String[]::new))) {
            m.put("start-up s", seconds(t0));
            heapAfterStart = heapAfterGc();
            m.put("RSS after start MB", rssMb());

            StateService states = svc.bean(StateService.class);
            double compute = Double.MAX_VALUE;
            for (int rep = 0; rep < 5; rep++) {
                t0 = System.nanoTime();
                State s = states.current(ManyFolders.GLOBAL_TAG, ManyFolders.TAGGED);
                compute = Math.min(compute, seconds(t0) * 1000);
                assertThat(s.folders()).hasSize(tagged);
            }
            m.put("state compute ms", compute);
            t0 = System.nanoTime();
            HttpResponse<byte[]> state = get(svc, "/v1/json/state/" + ManyFolders.GLOBAL_TAG + ManyFolders.TAGGED);
            m.put("state first request ms", seconds(t0) * 1000);
            assertThat(state.statusCode()).isEqualTo(200);
            assertThat(JSON.readTree(state.body()).get("rowCount").asInt()).isEqualTo(tagged);
            m.put("state answer KB", state.body().length / 1e3);
            m.put("state answer gzip KB", gzip(state.body()) / 1e3);

            long t = Workload.T0 + ManyFolders.HOUR + 1;
            long rl = ValidityKey.fromRunLumi(ManyFolders.FIRST_RUN + 1, 5);
            String snapshotPath = "/v1/json/snapshot/" + ManyFolders.GLOBAL_TAG + "/" + t + "," + rl + ManyFolders.TAGGED;
            t0 = System.nanoTime();
            HttpResponse<byte[]> snapshot = get(svc, snapshotPath);
            m.put("snapshot first request ms", seconds(t0) * 1000);
            assertThat(snapshot.statusCode()).as(new String(snapshot.body())).isEqualTo(200);
            checkSnapshot(JSON.readTree(snapshot.body()), n);
            m.put("snapshot answer KB", snapshot.body().length / 1e3);
            m.put("snapshot answer gzip KB", gzip(snapshot.body()) / 1e3);
            HttpResponse<byte[]> bin = get(svc, snapshotPath.replace("/v1/json/", "/v1/bin/"));
            assertThat(bin.statusCode()).isEqualTo(200);
            m.put("snapshot bin answer KB", bin.body().length / 1e3);
            heapAfterServing = heapAfterGc();
            m.put("RSS after serving MB", rssMb());

            Catalog catalog = svc.bean(Catalog.class);
            double poll = Double.MAX_VALUE;
            for (int rep = 0; rep < 5; rep++) {
                t0 = System.nanoTime();
                catalog.refresh();
                poll = Math.min(poll, seconds(t0) * 1000);
            }
            m.put("catalog poll ms", poll);

            // a writer appending to one folder: the next state must show its new generation
            IovStore store = svc.bean(IovStore.class);
            io.outpost.store.model.Node written = store.folder(ManyFolders.path(1, n));
            double afterWrite = Double.MAX_VALUE;
            for (int rep = 0; rep < 3; rep++) {
                long since = Workload.T0 + (10 + rep) * ManyFolders.HOUR;
                store.store(written, List.of(new io.outpost.store.model.NewIov(0, since, ValidityKey.MAX, rep, "w")));
                catalog.refresh();
                t0 = System.nanoTime();
                State s = states.current(ManyFolders.GLOBAL_TAG, ManyFolders.TAGGED);
                afterWrite = Math.min(afterWrite, seconds(t0) * 1000);
                String stamp = store.modificationStamp(written);
                assertThat(s.folders()).anySatisfy(f -> assertThat(f.stamp()).isEqualTo(stamp));
            }
            m.put("state compute after a write ms", afterWrite);

            Path dir = TempDirs.create("outpost-scale-export");
            try {
                t0 = System.nanoTime();
                SnapshotExporter.Result r;
                try (IovStore target = IovStore.open(DatabaseConfig.of("jdbc:sqlite:" + dir.resolve("export.db")))) {
                    r = new SnapshotExporter(svc.bean(IovStore.class), target).export(
                            SnapshotExporter.Request.perKeyType(ManyFolders.GLOBAL_TAG,
                                    new SnapshotExporter.Range(Workload.T0, Workload.T0 + 3 * ManyFolders.HOUR),
                                    new SnapshotExporter.Range(ValidityKey.fromRunLumi(ManyFolders.FIRST_RUN, 0),
                                            ValidityKey.fromRunLumi(ManyFolders.FIRST_RUN + 3, 0)),
                                    ManyFolders.TAGGED + "/**"), SnapshotExporter.Progress.NONE);
                }
                m.put("export s", seconds(t0));
                assertThat(r.folders()).isEqualTo(tagged);
                m.put("export MB", Files.size(dir.resolve("export.db")) / 1e6);
            } finally {
                TempDirs.delete(dir);
            }
        }
        // what the service holds: the heap with it running less the heap before it started
        m.put("heap after start MB", (heapAfterStart - heapBefore) / 1e6);
        m.put("heap after serving MB", (heapAfterServing - heapBefore) / 1e6);
        return m;
    }

    /** One row per folder of the tagged half, each with its answer inline holding one row per channel. */
    private static void checkSnapshot(JsonNode body, int n) {
        assertThat(body.get("rowCount").asInt()).isEqualTo(n / 2);
        for (JsonNode row : body.get("rows")) {
            String path = row.get(0).asString();
            int i = Integer.parseInt(path.substring(path.lastIndexOf('F') + 1));
            assertThat(path).isEqualTo(ManyFolders.path(i, n));
            assertThat(row.get(3).asLong()).as(path).isEqualTo(ManyFolders.channels(i));
            assertThat(row.get(5).isNull()).as(path + " inline").isFalse();
            assertThat(row.get(6).asString()).isEqualTo(ManyFolders.keyType(i).label());
            if (ManyFolders.versioning(i) == io.outpost.store.model.Versioning.MULTI_VERSION) {
                assertThat(row.get(1).asString()).isEqualTo(ManyFolders.tagOf(i));
            }
        }
    }

    /** A GET with a timeout long enough to measure a slow first answer rather than give up on it. */
    private static HttpResponse<byte[]> get(RunningService svc, String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(svc.url(path))).timeout(Duration.ofMinutes(10)).GET().build(),
                HttpResponse.BodyHandlers.ofByteArray());
    }

    private static double seconds(long t0) {
        return (System.nanoTime() - t0) / 1e9;
    }

    private static long heapAfterGc() {
        System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    private static double rssMb() throws Exception {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1e3;
            }
        }
        return 0;
    }

    private static long gzip(byte[] body) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream z = new GZIPOutputStream(out)) {
            z.write(body);
        }
        return out.size();
    }
}
