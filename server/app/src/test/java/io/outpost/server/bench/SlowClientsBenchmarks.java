package io.outpost.server.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.outpost.testkit.TempDirs;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The service in its own process (the exec jar in {@code -Xmx512m}, as {@code ./outpost start} runs it): latency of
 * normal (cached) requests and the service process's memory (VmRSS, VmHWM) alone, then in several rounds while 300
 * slowloris connections trickle unfinished request heads and 300 clients loop over cache-missing URLs, then alone
 * again. Rounds of the loaded phase show whether memory keeps growing with the load or levels off.
 */
@Tag("benchmark")
class SlowClientsBenchmarks {
    private static final String NORMAL = "/v1/json/count/HEAD/0/100/all/DEMO/Calo/Pedestals";
    private static final int SAMPLES = 2000;
    private static final int LOADED_ROUNDS = Integer.getInteger("outpost.bench.rounds", 10);

    @Test
    void normalRequestsNextToSlowAndMissingClients() throws Exception {
        Path jar;
        try (Stream<Path> files = Files.list(Path.of("target"))) {
            jar = files.filter(p -> p.getFileName().toString().endsWith("-exec.jar")).findFirst().orElse(null);
        }
        assumeTrue(jar != null, "run 'mvn package' first: the service runs from its -exec.jar in its own JVM");
        Path dir = TempDirs.create("outpost-slow");
        int port = ExternalTools.freePort();
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m", "-XX:NativeMemoryTracking=summary", "--enable-native-access=ALL-UNNAMED"));
        // more JVM options of the service to compare, e.g. -Doutpost.bench.service-jvm-args=-Djdk.nio.maxCachedBufferSize=262144
        String extra = System.getProperty("outpost.bench.service-jvm-args", "").trim();
        if (!extra.isEmpty()) {
            cmd.addAll(Arrays.asList(extra.split("\\s+")));
        }
        cmd.addAll(List.of("-jar", jar.toString(), "--server.port=" + port,
                "--outpost.database.url=jdbc:sqlite:" + dir.resolve("demo.db"),
                "--server.tomcat.basedir=" + dir.resolve("tomcat"), "--logging.level.outpost.access=warn"));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        // glibc's malloc arenas of the service (MALLOC_ARENA_MAX), e.g. -Doutpost.bench.malloc-arenas=2
        String arenas = System.getProperty("outpost.bench.malloc-arenas", "").trim();
        if (!arenas.isEmpty()) {
            pb.environment().put("MALLOC_ARENA_MAX", arenas);
        }
        System.out.println("BENCHMARK service JVM options: " + extra + (arenas.isEmpty() ? "" : ", MALLOC_ARENA_MAX=" + arenas));
        Process svc = pb.redirectErrorStream(true).redirectOutput(dir.resolve("service.log").toFile()).start();
        List<Socket> slow = new ArrayList<>();
        ExecutorService missing = Executors.newFixedThreadPool(300);
        ExecutorService trickle = Executors.newSingleThreadExecutor();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger misses = new AtomicInteger();
        AtomicInteger missErrors = new AtomicInteger();
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10)).build();
        // the normal requests have a client of their own, so that they do not queue behind the missing clients' ones
        HttpClient normal = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10)).build();
        String base = "http://127.0.0.1:" + port;
        try {
            awaitHealthy(http, base, svc);
            List<String> lines = new ArrayList<>();
            normalLatencies(normal, base); // warm-up
            lines.add(line("normal requests alone", normalLatencies(normal, base), svc.pid()));
            for (int i = 0; i < 300; i++) {
                Socket s = new Socket(InetAddress.getLoopbackAddress(), port);
                slow.add(s);
                OutputStream out = s.getOutputStream();
                out.write(("GET " + NORMAL + " HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ").getBytes(StandardCharsets.US_ASCII));
                out.flush();
            }
            trickle.execute(() -> {
                // one more header byte per connection every 2 s, as slowloris does to keep the head unfinished
                while (!stop.get()) {
                    for (Socket s : slow) {
                        try {
                            s.getOutputStream().write('x');
                        } catch (IOException closedByServer) {
                            // the service gave up on it: fine
                        }
                    }
                    try {
                        Thread.sleep(2000);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            });
            for (int i = 0; i < 300; i++) {
                missing.execute(() -> {
                    while (!stop.get()) {
                        String url = base + "/v1/json/count/HEAD/0/" + (1000 + misses.incrementAndGet()) + "/all/DEMO/Calo/Pedestals";
                        try {
                            HttpResponse<byte[]> r = http.send(HttpRequest.newBuilder(URI.create(url))
                                    .timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofByteArray());
                            if (r.statusCode() != 200 || r.body().length == 0) {
                                missErrors.incrementAndGet();
                            }
                        } catch (InterruptedException e) {
                            return;
                        } catch (IOException e) {
                            missErrors.incrementAndGet();
                        }
                    }
                });
            }
            long[] rss = new long[LOADED_ROUNDS + 1];
            for (int round = 1; round <= LOADED_ROUNDS; round++) {
                lines.add(line("300 slowloris + 300 missing, round " + round, normalLatencies(normal, base), svc.pid()));
                rss[round] = status(svc.pid(), "VmRSS:");
                NativeMemorySummary nmt = NativeMemorySummary.of(svc.pid());
                // RSS beyond the JVM's committed total: native libraries' mallocs and glibc's arenas
                System.out.println("BENCHMARK " + lines.getLast() + ", " + nmt.line() + ", RSS - NMT "
                        + ((rss[round] - nmt.totalCommittedKb()) >> 10) + " MB, misses so far " + misses.get());
            }
            int half = LOADED_ROUNDS / 2;
            if (half >= 2) {
                // growth levelling off towards the last rounds is what "bounded" looks like
                String growth = String.format(Locale.ROOT, "RSS growth per round: rounds 1-%d %.1f MB, rounds %d-%d %.1f MB",
                        half, (rss[half] - rss[1]) / 1024.0 / (half - 1), half, LOADED_ROUNDS,
                        (rss[LOADED_ROUNDS] - rss[half]) / 1024.0 / (LOADED_ROUNDS - half));
                lines.add(growth);
                System.out.println("BENCHMARK " + growth);
            }
            int answered = misses.get();
            stop.set(true);
            missing.shutdownNow();
            missing.awaitTermination(60, TimeUnit.SECONDS);
            for (Socket s : slow) {
                s.close();
            }
            normalLatencies(normal, base);
            lines.add(line("normal requests alone again", normalLatencies(normal, base), svc.pid()));
            lines.forEach(l -> System.out.println("BENCHMARK " + l));
            // what the JVM itself accounts for (heap, threads, code, GC, ...), to tell its memory from native
            // libraries' mallocs (SQLite, zstd) that only RSS shows; the whole summary goes to target/
            NativeMemorySummary after = NativeMemorySummary.of(svc.pid());
            Files.writeString(Path.of("target", "slow-clients-nmt.txt"), after.text());
            System.out.println("BENCHMARK after the load: " + after.line());
            System.out.println("BENCHMARK cache-missing requests sent meanwhile: " + answered + ", of which failed: "
                    + missErrors.get() + "; service -Xmx512m, own process");
            assertThat(svc.isAlive()).as("service alive").isTrue();
            // a failed miss (an error status, an empty body, a broken connection) fails the benchmark
            assertThat(missErrors.get()).as("cache-missing requests that failed").isZero();
        } finally {
            stop.set(true);
            missing.shutdownNow();
            trickle.shutdownNow();
            missing.awaitTermination(60, TimeUnit.SECONDS);
            trickle.awaitTermination(10, TimeUnit.SECONDS);
            for (Socket s : slow) {
                s.close();
            }
            svc.destroy();
            if (!svc.waitFor(30, TimeUnit.SECONDS)) {
                svc.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
            if (Files.exists(dir.resolve("service.log"))) {
                Files.copy(dir.resolve("service.log"), Path.of("target", "slow-clients-service.log"),
                        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
            TempDirs.deleteQuietly(dir);
        }
    }

    private static void awaitHealthy(HttpClient http, String base, Process svc) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (true) {
            try {
                if (http.send(HttpRequest.newBuilder(URI.create(base + "/actuator/health")).build(),
                        HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                assertThat(svc.isAlive()).as("service process alive").isTrue();
            }
            assertThat(System.nanoTime()).as("service started within 90 s").isLessThan(deadline);
            Thread.sleep(100); // polling a process we cannot be notified by; bounded above
        }
    }

    /** Times {@code SAMPLES} normal requests, each checked: status 200 and the same answer as the first. */
    private static long[] normalLatencies(HttpClient http, String base) throws Exception {
        long[] ns = new long[SAMPLES];
        HttpRequest req = HttpRequest.newBuilder(URI.create(base + NORMAL)).timeout(Duration.ofSeconds(60)).build();
        HttpResponse<byte[]> first = http.send(req, HttpResponse.BodyHandlers.ofByteArray());
        assertThat(first.statusCode()).as("normal request").isEqualTo(200);
        assertThat(new String(first.body(), StandardCharsets.UTF_8)).as("a count answer").contains("\"rows\"");
        for (int i = 0; i < SAMPLES; i++) {
            long t0 = System.nanoTime();
            HttpResponse<byte[]> r = http.send(req, HttpResponse.BodyHandlers.ofByteArray());
            ns[i] = System.nanoTime() - t0;
            assertThat(r.statusCode()).as("normal request").isEqualTo(200);
            assertThat(r.body()).as("normal answer").isEqualTo(first.body());
            if (ns[i] > 5_000_000_000L) {
                System.out.println("BENCHMARK slow normal request: " + ns[i] / 1_000_000 + " ms");
            }
        }
        Arrays.sort(ns);
        return ns;
    }

    private static String line(String what, long[] ns, long pid) {
        return String.format(Locale.ROOT, "%-40s p50 %6.2f ms  p99 %7.2f ms  service VmRSS %5d MB  VmHWM %5d MB  threads %4d",
                what, ns[ns.length / 2] / 1e6, ns[(int) (ns.length * 0.99)] / 1e6, status(pid, "VmRSS:") >> 10,
                status(pid, "VmHWM:") >> 10, status(pid, "Threads:"));
    }

    /** A number from /proc/PID/status (kB for memory), or -1 where there is none. */
    private static long status(long pid, String key) {
        try {
            for (String l : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
                if (l.startsWith(key)) {
                    return Long.parseLong(l.replaceAll("[^0-9]", ""));
                }
            }
        } catch (IOException e) {
            // not Linux
        }
        return -1;
    }
}
