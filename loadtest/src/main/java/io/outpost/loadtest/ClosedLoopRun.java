package io.outpost.loadtest;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code clients} threads, each issuing the plan's queries back to back (a closed loop), until {@code maxRequests}
 * requests have been issued or {@code maxDuration} has passed, whichever is first. Every request ends up counted
 * as a success or as a classified failure.
 */
public final class ClosedLoopRun {
    private ClosedLoopRun() {
    }

    public static StepResult run(Target target, WorkloadPlan plan, int clients, long maxRequests, Duration maxDuration,
                                 boolean progress) throws InterruptedException {
        StepRecorder rec = new StepRecorder();
        double elapsed = slice(target, plan, clients, maxRequests, maxDuration, progress, rec);
        return rec.result(plan.workload().label(), target.mode(), clients, elapsed);
    }

    /**
     * Like {@link #run}, recording into {@code rec} (which may hold earlier slices of the same step); returns the
     * seconds this slice took.
     */
    public static double slice(Target target, WorkloadPlan plan, int clients, long maxRequests, Duration maxDuration,
                               boolean progress, StepRecorder rec) throws InterruptedException {
        AtomicLong tickets = new AtomicLong();
        long start = System.nanoTime();
        long deadline = start + maxDuration.toNanos();
        String label = plan.workload().label() + "/" + target.mode().label() + " c=" + clients;
        ExecutorService pool = Executors.newFixedThreadPool(clients, r -> {
            Thread t = new Thread(r, "client");
            t.setDaemon(true);
            return t;
        });
        try (Progress p = new Progress(progress, label, rec, () -> "")) {
            List<Future<?>> fs = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                fs.add(pool.submit(() -> {
                    long n;
                    while (System.nanoTime() < deadline && (n = tickets.getAndIncrement()) < maxRequests) {
                        Query q = plan.query(n);
                        long t0 = System.nanoTime();
                        try {
                            Outcome o = target.execute(q, n);
                            rec.success(o, System.nanoTime() - t0);
                        } catch (InterruptedException e) {
                            rec.failure(Failure.TIMEOUT, "interrupted at the end of the run");
                            Thread.currentThread().interrupt();
                            return;
                        } catch (Exception | Error e) {
                            rec.failure(Failure.classify(e), String.valueOf(e));
                        }
                    }
                }));
            }
            pool.shutdown();
            // The duration bound stops new requests; requests in flight get their own time-out to finish.
            if (!pool.awaitTermination(maxDuration.toMillis() + 120_000, TimeUnit.MILLISECONDS)) {
                pool.shutdownNow();
                pool.awaitTermination(10, TimeUnit.SECONDS);
            }
        }
        return (System.nanoTime() - start) / 1e9;
    }
}
