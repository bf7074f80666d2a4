package io.outpost.server.bench;

import io.outpost.server.support.RunningService;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Latency of normal (cached) requests alone, then side by side with 300 slowloris connections and 300 clients
 * asking cache-missing URLs in a loop; prints p50/p99 of the normal requests and the process's RSS and heap.
 */
@Tag("benchmark")
class SlowClientsBenchmarks {
    private static final String NORMAL = "/v1/json/count/HEAD/0/100/all/DEMO/Calo/Pedestals";
    private static final int SAMPLES = 2000;

    private static long[] normalLatencies(RunningService svc) throws Exception {
        long[] ns = new long[SAMPLES];
        for (int i = 0; i < SAMPLES; i++) {
            long t0 = System.nanoTime();
            if (svc.get(NORMAL).statusCode() != 200) {
                throw new AssertionError("normal request failed");
            }
            ns[i] = System.nanoTime() - t0;
        }
        Arrays.sort(ns);
        return ns;
    }

    private static String line(String what, long[] ns) {
        return String.format(Locale.ROOT, "%-36s p50 %6.2f ms  p99 %6.2f ms  rss %5d MB  heap %5d MB", what,
                ns[ns.length / 2] / 1e6, ns[(int) (ns.length * 0.99)] / 1e6, rssMb(),
                ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() >> 20);
    }

    private static long rssMb() {
        try {
            for (String l : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (l.startsWith("VmRSS:")) {
                    return Long.parseLong(l.replaceAll("[^0-9]", "")) >> 10;
                }
            }
        } catch (Exception e) {
            // not Linux
        }
        return -1;
    }

    @Test
    void normalRequestsNextToSlowAndMissingClients() throws Exception {
        List<Socket> slow = new ArrayList<>();
        ExecutorService missing = Executors.newFixedThreadPool(300);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger misses = new AtomicInteger();
        try (RunningService svc = RunningService.startSqliteDemo("--logging.level.root=warn")) {
            normalLatencies(svc); // warm-up
            String alone = line("normal requests alone", normalLatencies(svc));
            for (int i = 0; i < 300; i++) {
                Socket s = new Socket(InetAddress.getLoopbackAddress(), svc.port());
                slow.add(s);
                OutputStream out = s.getOutputStream();
                out.write(("GET " + NORMAL + " HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ").getBytes(StandardCharsets.US_ASCII));
                out.flush();
            }
            for (int i = 0; i < 300; i++) {
                missing.execute(() -> {
                    while (!stop.get()) {
                        try {
                            svc.get("/v1/json/count/HEAD/0/" + (1000 + misses.incrementAndGet()) + "/all/DEMO/Calo/Pedestals");
                        } catch (Exception e) {
                            return;
                        }
                    }
                });
            }
            String loaded = line("with 300 slowloris + 300 missing", normalLatencies(svc));
            System.out.println("BENCHMARK " + alone);
            System.out.println("BENCHMARK " + loaded);
            System.out.println("BENCHMARK cache-missing requests answered meanwhile: " + misses.get());
        } finally {
            stop.set(true);
            missing.shutdownNow();
            missing.awaitTermination(30, TimeUnit.SECONDS);
            for (Socket s : slow) {
                s.close();
            }
        }
    }
}
