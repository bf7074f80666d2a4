package io.outpost.loadtest;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.SynchronizedHistogram;

/** Thread-safe counters and latency histogram (µs, 1 µs … 1 h, 3 significant digits) of one step. */
public final class StepRecorder {
    private static final double[] PERCENTILES = {0, 10, 25, 50, 75, 90, 95, 99, 99.5, 99.9, 99.99, 100};
    private static final int MAX_EXAMPLES = 5;

    private final Histogram latency = new SynchronizedHistogram(TimeUnit.HOURS.toMicros(1), 3);
    private final LongAdder ok = new LongAdder();
    private final LongAdder bytes = new LongAdder();
    private final LongAdder rows = new LongAdder();
    private final LongAdder hits = new LongAdder();
    private final LongAdder misses = new LongAdder();
    private final Map<Failure, LongAdder> failures = new EnumMap<>(Failure.class);
    private final List<String> examples = Collections.synchronizedList(new ArrayList<>());

    public StepRecorder() {
        for (Failure f : Failure.values()) {
            failures.put(f, new LongAdder());
        }
    }

    public void success(Outcome o, long nanos) {
        ok.increment();
        bytes.add(o.bytes());
        rows.add(o.rows());
        if (o.cacheHit() != null) {
            (o.cacheHit() ? hits : misses).increment();
        }
        latency.recordValue(Math.max(1, Math.min(nanos / 1000, latency.getHighestTrackableValue())));
    }

    public void failure(Failure f, String message) {
        failures.get(f).increment();
        if (examples.size() < MAX_EXAMPLES) {
            examples.add(f + ": " + message);
        }
    }

    public long ok() {
        return ok.sum();
    }

    public long failed() {
        return failures.values().stream().mapToLong(LongAdder::sum).sum();
    }

    public long bytes() {
        return bytes.sum();
    }

    public StepResult result(String workload, Mode mode, int clients, double elapsedSeconds) {
        long okN = ok.sum();
        long failedN = failed();
        Map<String, Long> byClass = new LinkedHashMap<>();
        failures.forEach((f, n) -> {
            if (n.sum() > 0) {
                byClass.put(f.name(), n.sum());
            }
        });
        Histogram h = latency.copy();
        List<LatencyPoint> points = new ArrayList<>();
        if (h.getTotalCount() > 0) {
            for (double p : PERCENTILES) {
                points.add(new LatencyPoint(p, ms(h.getValueAtPercentile(p))));
            }
        }
        double secs = Math.max(elapsedSeconds, 1e-9);
        long hitN = hits.sum();
        long missN = misses.sum();
        return new StepResult(workload, mode.label(), clients, okN + failedN, okN, failedN, byClass,
                List.copyOf(examples), bytes.sum(), rows.sum(), elapsedSeconds, bytes.sum() / 1e6 / secs,
                rows.sum() / secs, okN / secs, h.getTotalCount() == 0 ? 0 : h.getMean() / 1000.0,
                ms(h.getValueAtPercentile(50)), ms(h.getValueAtPercentile(90)), ms(h.getValueAtPercentile(99)),
                ms(h.getMaxValue()), points, hitN, missN, hitN + missN == 0 ? null : (double) hitN / (hitN + missN),
                null, null);
    }

    private static double ms(long micros) {
        return micros / 1000.0;
    }
}
