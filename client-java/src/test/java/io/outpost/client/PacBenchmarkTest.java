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
 * same proxy as proxyurl, side by side in one JVM through the same in-process proxy and origin. The first request of
 * a client pays for reading and evaluating the PAC file (and, once per JVM, for loading Rhino); later ones use the
 * cached answer. Run with {@code ./mvnw -B -Pbenchmark test -pl client-java -Dtest=PacBenchmarkTest}; figures go to
 * docs/benchmarks.md, "Proxy auto-config".
 */
@Tag("benchmark")
class PacBenchmarkTest {
    static final int CLIENTS = 200;
    static final int LATER = 20;

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

            long coldPac = firstRequest(withPac); // the JVM's first PAC client: loads and starts Rhino
            long coldPlain = firstRequest(plain);
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
            System.out.printf("BENCHMARK pac first-request (create + 1st query, median of %d): plain %.3f ms, PAC %.3f ms,"
                    + " PAC adds %.3f ms; JVM's first PAC client %.1f ms vs first plain %.1f ms%n", CLIENTS, fPlain, fPac,
                    fPac - fPlain, coldPac / 1e6, coldPlain / 1e6);
            System.out.printf("BENCHMARK pac later-requests (median of %d): plain %.3f ms, PAC %.3f ms, ratio %.2f%n",
                    CLIENTS * LATER, lPlain, lPac, lPac / lPlain);
            assertThat(proxy.requestCount()).as("every query went through the proxy")
                    .isEqualTo(2 + 2 * CLIENTS * (1 + LATER));
        } finally {
            TempDirs.delete(dir);
        }
    }

    private static long firstRequest(ClientConfig cfg) throws OutpostException {
        long t0 = System.nanoTime();
        try (OutpostClient c = OutpostClient.create(cfg)) {
            assertThat(c.channels("/A/Time")).hasSize(FakeOutpost.CHANNELS);
        }
        return System.nanoTime() - t0;
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
