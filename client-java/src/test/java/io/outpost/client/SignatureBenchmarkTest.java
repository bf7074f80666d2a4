package io.outpost.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.client.testing.FakeOutpost;
import io.outpost.client.testing.FakeServer;
import io.outpost.testkit.SigningKeys;
import io.outpost.testkit.TempDirs;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * What verifying signed answers costs the Java client: the same queries against the same in-process server (which
 * signs every answer) by a client with security=sig and one without, alternated in one JVM, in-process cache off.
 * Two sizes: a channel list (10 rows) and a browse of 1,000 rows. Run with
 * {@code ./mvnw -B -Pbenchmark test -pl client-java -Dtest=SignatureBenchmarkTest}; figures go to docs/benchmarks.md.
 */
@Tag("benchmark")
class SignatureBenchmarkTest {
    static final int WARMUP = 200;
    static final int ROUNDS = 1_000;

    @Test
    void verificationCostPerAnswerNextToAnUnsignedRead() throws Exception {
        Path dir = TempDirs.create("outpost-sig-bench");
        try {
            SigningKeys key = SigningKeys.create(dir, "bench");
            FakeOutpost outpost = new FakeOutpost();
            try (FakeServer server = FakeServer.start(r -> {
                FakeServer.Reply reply = outpost.handle(r);
                reply.headers().put("X-Outpost-Signature", key.header("bench", r.target(), reply.body()));
                return reply;
            })) {
                ClientConfig plain = ClientConfig.builder().server(server.url()).cacheMaxBytes(0).retries(0).build();
                ClientConfig verifying = plain.toBuilder().security("sig").verifyKey("bench:" + key.publicKey()).build();
                try (OutpostClient p = OutpostClient.create(plain); OutpostClient v = OutpostClient.create(verifying)) {
                    compare("channels (10 rows)", p, v, c -> assertThat(c.channels("/A/Time")).hasSize(FakeOutpost.CHANNELS));
                    compare("browse (1,000 rows)", p, v, c -> assertThat(c.browse("/A/Time", OutpostClient.HEAD, 0,
                            FakeOutpost.END, ChannelSelection.all(), Order.CHANNEL_SINCE)).hasSize(1000));
                }
            }
        } finally {
            TempDirs.delete(dir);
        }
    }

    interface Query {
        void run(OutpostClient c) throws Exception;
    }

    private static void compare(String what, OutpostClient plain, OutpostClient verifying, Query q) throws Exception {
        for (int i = 0; i < WARMUP; i++) {
            q.run(plain);
            q.run(verifying);
        }
        long[] p = new long[ROUNDS];
        long[] v = new long[ROUNDS];
        for (int i = 0; i < ROUNDS; i++) { // alternated, so both see the same machine load
            p[i] = timed(plain, q);
            v[i] = timed(verifying, q);
        }
        double mp = median(p) / 1e3;
        double mv = median(v) / 1e3;
        System.out.printf("BENCHMARK signed answers, %s, median of %d: unsigned read %.1f us, verified read %.1f us,"
                + " verification adds %.1f us, ratio %.2f%n", what, ROUNDS, mp, mv, mv - mp, mv / mp);
    }

    private static long timed(OutpostClient c, Query q) throws Exception {
        long t0 = System.nanoTime();
        q.run(c);
        return System.nanoTime() - t0;
    }

    private static double median(long[] v) {
        long[] s = v.clone();
        Arrays.sort(s);
        return s[s.length / 2];
    }
}
