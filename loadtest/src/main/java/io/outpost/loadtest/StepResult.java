package io.outpost.loadtest;

import java.util.List;
import java.util.Map;

/**
 * One measured step: a workload in one mode with a number of concurrent clients. {@code requests = ok + failed}
 * and {@code failed} is the sum of {@code failures}; rates are per second of {@code elapsedSeconds} and count
 * successful requests only. {@code dbQueries}: statements issued to the database — by the generator itself in
 * direct mode, by the service (its outpost_cache_loads_total) otherwise; null if unknown.
 */
public record StepResult(String workload, String mode, int clients, long requests, long ok, long failed,
                         Map<String, Long> failures, List<String> failureExamples, long bytes, long rows,
                         double elapsedSeconds, double mbPerSecond, double rowsPerSecond, double requestsPerSecond,
                         double meanMillis, double p50Millis, double p90Millis, double p99Millis, double maxMillis,
                         List<LatencyPoint> latency, long squidHits, long squidMisses, Double squidHitRatio,
                         Long dbQueries, AtlasStats atlas) {

    public StepResult withDbQueries(Long n) {
        return new StepResult(workload, mode, clients, requests, ok, failed, failures, failureExamples, bytes, rows,
                elapsedSeconds, mbPerSecond, rowsPerSecond, requestsPerSecond, meanMillis, p50Millis, p90Millis,
                p99Millis, maxMillis, latency, squidHits, squidMisses, squidHitRatio, n, atlas);
    }

    public StepResult withAtlas(AtlasStats a) {
        return new StepResult(workload, mode, clients, requests, ok, failed, failures, failureExamples, bytes, rows,
                elapsedSeconds, mbPerSecond, rowsPerSecond, requestsPerSecond, meanMillis, p50Millis, p90Millis,
                p99Millis, maxMillis, latency, squidHits, squidMisses, squidHitRatio, dbQueries, a);
    }
}
