package io.outpost.loadtest;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.SynchronizedHistogram;

/**
 * The ATLAS prompt-reconstruction client model, scaled down: {@code jobs} jobs start {@code stagger} apart; every
 * {@code period} each job fetches one snapshot (all folders at the key of the event window it processes), up to
 * {@code snapshotsPerJob} times. A snapshot is in time if complete within {@code deadline} of its scheduled start.
 * Job j's k-th snapshot is event window j + k, so neighbouring jobs share windows (and URLs), as jobs processing
 * the same run do. Efficiency = snapshots in time / snapshots scheduled; a failed request fails its snapshot.
 */
public final class AtlasModel {
    public record Params(int jobs, Duration stagger, Duration period, int snapshotsPerJob, Duration deadline, double scale) {
        public Params {
            if (jobs < 1 || snapshotsPerJob < 1) {
                throw new IllegalArgumentException("ATLAS model needs at least one job and one snapshot per job");
            }
        }

        /** Time from the first start to the last scheduled snapshot's deadline. */
        public Duration span() {
            return stagger.multipliedBy(jobs - 1).plus(period.multipliedBy(snapshotsPerJob - 1)).plus(deadline);
        }
    }

    private AtlasModel() {
    }

    /** Scheduled start of job {@code j}'s snapshot {@code k}, from the start of the run. */
    public static Duration startOf(Params p, int j, int k) {
        return p.stagger().multipliedBy(j).plus(p.period().multipliedBy(k));
    }

    public static StepResult run(Target target, Params p, boolean progress) throws InterruptedException {
        StepRecorder rec = new StepRecorder();
        Histogram snapshotMicros = new SynchronizedHistogram(TimeUnit.HOURS.toMicros(1), 3);
        AtomicLong inTime = new AtomicLong();
        AtomicLong done = new AtomicLong();
        AtomicLong seq = new AtomicLong();
        int total = p.jobs() * p.snapshotsPerJob();
        CountDownLatch finished = new CountDownLatch(total);
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        ExecutorService workers = Executors.newVirtualThreadPerTaskExecutor();
        long start = System.nanoTime();
        String label = "atlasPrompt/" + target.mode().label() + " jobs=" + p.jobs();
        try (Progress pr = new Progress(progress, label, rec,
                () -> String.format(java.util.Locale.ROOT, "%d/%d snapshots, %d in time", done.get(), total, inTime.get()))) {
            for (int j = 0; j < p.jobs(); j++) {
                for (int k = 0; k < p.snapshotsPerJob(); k++) {
                    long due = start + startOf(p, j, k).toNanos();
                    List<Query> snapshot = WorkloadPlan.atlasSnapshot(p.scale(), j + k);
                    // The scheduler only starts snapshots; fetching runs on its own thread, so a slow snapshot
                    // never delays the next job's start.
                    scheduler.schedule(() -> workers.submit(() -> {
                        boolean ok = true;
                        try {
                            for (Query q : snapshot) {
                                long t0 = System.nanoTime();
                                try {
                                    rec.success(target.execute(q, seq.getAndIncrement()), System.nanoTime() - t0);
                                } catch (Exception | Error e) {
                                    rec.failure(Failure.classify(e), String.valueOf(e));
                                    ok = false;
                                    break;
                                }
                            }
                            long took = System.nanoTime() - due;
                            snapshotMicros.recordValue(Math.max(1, Math.min(took / 1000, snapshotMicros.getHighestTrackableValue())));
                            if (ok && took <= p.deadline().toNanos()) {
                                inTime.incrementAndGet();
                            }
                        } finally {
                            done.incrementAndGet();
                            finished.countDown();
                        }
                    }), due - System.nanoTime(), TimeUnit.NANOSECONDS);
                }
            }
            // Bounded: the schedule plus the deadline, plus a grace period for requests in flight.
            if (!finished.await(p.span().toMillis() + 60_000, TimeUnit.MILLISECONDS)) {
                for (long i = finished.getCount(); i > 0; i--) {
                    rec.failure(Failure.DEADLINE, "snapshot not complete when the run ended");
                }
            }
        } finally {
            scheduler.shutdownNow();
            workers.shutdownNow();
        }
        double elapsed = (System.nanoTime() - start) / 1e9;
        Histogram h = snapshotMicros.copy();
        AtlasStats stats = new AtlasStats(p.jobs(), p.stagger().toMillis() / 1000.0, p.period().toMillis() / 1000.0,
                p.snapshotsPerJob(), p.deadline().toMillis() / 1000.0, total, inTime.get(),
                AtlasStats.efficiency(inTime.get(), total), h.getValueAtPercentile(50) / 1000.0,
                h.getValueAtPercentile(99) / 1000.0, h.getMaxValue() / 1000.0);
        return rec.result("atlasPrompt", target.mode(), p.jobs(), elapsed).withAtlas(stats);
    }
}
