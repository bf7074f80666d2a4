package io.outpost.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.client.testing.FakeOutpost;
import io.outpost.client.testing.FakeProxy;
import io.outpost.client.testing.FakeServer;
import io.outpost.testkit.TempDirs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * What proxy auto-config costs: a client created with a PAC file (file://, naming one proxy) against one with the
 * same proxy as proxyurl, side by side through the same in-process proxy and origin. The first request of a process
 * pays for loading Rhino and evaluating the PAC file: measured in fresh JVMs, plain and PAC alternated. A later
 * client in the same JVM (timed after as many untimed clients of each kind) pays for reading the file and asking it
 * once per server; later requests use the cached answer. Run with
 * {@code ./mvnw -B -Pbenchmark test -pl client-java -Dtest=PacBenchmarkTest}; figures go to docs/benchmarks.md,
 * "Clients".
 */
@Tag("benchmark")
class PacBenchmarkTest {
    static final int CLIENTS = 200;
    static final int LATER = 20;
    /** Fresh JVMs per configuration for the first request of a process. */
    static final int PROCESSES = 8;

    @Test
    void pacAddsLittleToTheFirstRequestAndNothingToLaterOnes() throws Exception {
        Path dir = TempDirs.create("outpost-pac-bench");
        try (FakeServer origin = FakeServer.start(new FakeOutpost()); FakeServer proxy = FakeServer.start(new FakeProxy())) {
            Path pac = Files.writeString(dir.resolve("site.pac"), "function FindProxyForURL(url, host) {\n"
                    + "  if (isPlainHostName(host) || dnsDomainIs(host, '.local.example')) return 'DIRECT';\n"
                    + "  if (shExpMatch(host, '127.*')) return 'PROXY " + proxy.url().substring(7) + "; DIRECT';\n"
                    + "  return 'DIRECT';\n}\n");
            ClientConfig.Builder base = ClientConfig.builder().server(origin.url()).cacheMaxBytes(0).retries(0)
                    .backoff(Duration.ZERO, Duration.ZERO).build().toBuilder();
            ClientConfig plain = base.build().toBuilder().proxy(proxy.url()).build();
            ClientConfig withPac = base.build().toBuilder().proxyConfig(pac.toUri().toString()).build();

            long[][] freshPlain = new long[2][PROCESSES];
            long[][] freshPac = new long[2][PROCESSES];
            for (int i = 0; i < PROCESSES; i++) { // alternated, so both see the same machine load
                inFreshJvm(plain, freshPlain, i);
                inFreshJvm(withPac, freshPac, i);
            }
            // Untimed: loads Rhino and warms both paths, so that the loop below times later clients.
            for (int i = 0; i < CLIENTS; i++) {
                firstRequest(withPac);
                firstRequest(plain);
            }
            long[] firstPlain = new long[CLIENTS];
            long[] firstPac = new long[CLIENTS];
            long[] laterPlain = new long[CLIENTS * LATER];
            long[] laterPac = new long[CLIENTS * LATER];
            for (int i = 0; i < CLIENTS; i++) { // alternated, so both see the same machine load
                firstPlain[i] = timed(plain, laterPlain, i * LATER);
                firstPac[i] = timed(withPac, laterPac, i * LATER);
            }
            double fPlain = median(firstPlain) / 1e6;
            double fPac = median(firstPac) / 1e6;
            double lPlain = median(laterPlain) / 1e6;
            double lPac = median(laterPac) / 1e6;
            System.out.printf("BENCHMARK pac first-request-of-a-process (create + 1st query in a fresh JVM, median of"
                    + " %d): plain %.1f ms, PAC %.1f ms, PAC adds %.1f ms; CPU time of the process: plain %.1f ms, PAC"
                    + " %.1f ms, PAC adds %.1f ms%n", PROCESSES, median(freshPlain[0]) / 1e6, median(freshPac[0]) / 1e6,
                    (median(freshPac[0]) - median(freshPlain[0])) / 1e6, median(freshPlain[1]) / 1e6,
                    median(freshPac[1]) / 1e6, (median(freshPac[1]) - median(freshPlain[1])) / 1e6);
            System.out.printf("BENCHMARK pac first-request of a later client (create + 1st query, median of %d): plain"
                    + " %.3f ms, PAC %.3f ms, PAC adds %.3f ms%n", CLIENTS, fPlain, fPac, fPac - fPlain);
            System.out.printf("BENCHMARK pac later-requests (median of %d): plain %.3f ms, PAC %.3f ms, ratio %.2f%n",
                    CLIENTS * LATER, lPlain, lPac, lPac / lPlain);
            assertThat(proxy.requestCount()).as("every query went through the proxy")
                    .isEqualTo(2 * PROCESSES + 2 * CLIENTS + 2 * CLIENTS * (1 + LATER));
        } finally {
            TempDirs.delete(dir);
        }
    }

    private static void firstRequest(ClientConfig cfg) throws OutpostException {
        try (OutpostClient c = OutpostClient.create(cfg)) {
            assertThat(c.channels("/A/Time")).hasSize(FakeOutpost.CHANNELS);
        }
    }

    /** Runs {@link FirstRequest} in a new JVM; its wall and CPU nanoseconds go to {@code into[0|1][i]}. */
    private static void inFreshJvm(ClientConfig cfg, long[][] into, int i) throws Exception {
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), FirstRequest.class.getName(), cfg.toString())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(out).isZero();
        String[] last = out.strip().lines().reduce((a, b) -> b).orElse("").split(" ");
        assertThat(last).as(out).hasSize(2);
        into[0][i] = Long.parseLong(last[0]);
        into[1][i] = Long.parseLong(last[1]);
    }

    /**
     * A process's first client: creates it from the configuration string given, asks one query, checks the answer
     * and prints the wall and CPU nanoseconds of the two (the process's CPU time, all its threads: steadier than the
     * wall time on a loaded machine).
     */
    public static final class FirstRequest {
        public static void main(String[] args) throws Exception {
            ClientConfig cfg = ClientConfig.parse(args[0]);
            long t0 = System.nanoTime();
            long c0 = cpuNanos();
            int channels;
            try (OutpostClient c = OutpostClient.create(cfg)) {
                channels = c.channels("/A/Time").size();
            }
            long wall = System.nanoTime() - t0;
            long cpu = cpuNanos() - c0;
            if (channels != FakeOutpost.CHANNELS) {
                throw new AssertionError(channels + " channels, expected " + FakeOutpost.CHANNELS);
            }
            System.out.println(wall + " " + cpu);
        }

        private static long cpuNanos() {
            return ProcessHandle.current().info().totalCpuDuration().orElseThrow().toNanos();
        }
    }

    /** Creates a client, times its first query (returned) and LATER more (into {@code later} from {@code at}). */
    private static long timed(ClientConfig cfg, long[] later, int at) throws OutpostException {
        long t0 = System.nanoTime();
        try (OutpostClient c = OutpostClient.create(cfg)) {
            assertThat(c.channels("/A/Time")).hasSize(FakeOutpost.CHANNELS);
            long first = System.nanoTime() - t0;
            for (int k = 0; k < LATER; k++) {
                long s = System.nanoTime();
                assertThat(c.channels("/A/Time")).hasSize(FakeOutpost.CHANNELS);
                later[at + k] = System.nanoTime() - s;
            }
            return first;
        }
    }

    private static double median(long[] v) {
        long[] s = v.clone();
        Arrays.sort(s);
        return s[s.length / 2];
    }
}
