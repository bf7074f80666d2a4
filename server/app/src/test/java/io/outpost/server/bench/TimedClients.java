package io.outpost.server.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * A timed slice of clients asking an in-process service at once: answers per second, and the service's CPU per
 * answer (the process's CPU time less the clients' own, each client's thread timed around its loop).
 */
final class TimedClients {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    record Slice(double answersPerSecond, double serviceCpuMsPerAnswer) {
    }

    /** One client's loop until {@code endNanos} ({@link System#nanoTime}); returns the answers it checked. */
    interface Client {
        long run(int client, long endNanos) throws Exception;
    }

    private TimedClients() {
    }

    /** {@code conns} clients for {@code seconds}; a client's failure fails the slice. */
    static Slice run(int conns, int seconds, Client client) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(conns);
        try {
            long cpu0 = OS.getProcessCpuTime();
            long t0 = System.nanoTime();
            long end = t0 + seconds * 1_000_000_000L;
            List<Future<long[]>> done = new ArrayList<>();
            for (int i = 0; i < conns; i++) {
                int c = i;
                done.add(pool.submit(() -> {
                    long own0 = THREADS.getCurrentThreadCpuTime();
                    long answers = client.run(c, end);
                    return new long[] {answers, THREADS.getCurrentThreadCpuTime() - own0};
                }));
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
}
