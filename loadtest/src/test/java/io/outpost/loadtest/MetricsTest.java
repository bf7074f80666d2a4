package io.outpost.loadtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.net.ConnectException;
import java.net.http.HttpTimeoutException;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MetricsTest {

    @Test
    void ratesPercentilesAndCountsAddUp() {
        StepRecorder rec = new StepRecorder();
        for (int i = 1; i <= 100; i++) {
            rec.success(new Outcome(1_000_000, 10, i % 4 != 0), i * 1_000_000L); // i ms
        }
        rec.failure(Failure.HTTP_5XX, "503");
        rec.failure(Failure.TIMEOUT, "slow");
        rec.failure(Failure.TIMEOUT, "slow again");
        StepResult r = rec.result("smallQueries", Mode.CACHED, 4, 2.0);

        assertThat(r.requests()).isEqualTo(103);
        assertThat(r.ok()).isEqualTo(100);
        assertThat(r.failed()).isEqualTo(3).isEqualTo(r.failures().values().stream().mapToLong(Long::longValue).sum());
        assertThat(r.failures()).containsExactly(Map.entry("TIMEOUT", 2L), Map.entry("HTTP_5XX", 1L));
        assertThat(r.failureExamples()).hasSize(3);
        assertThat(r.bytes()).isEqualTo(100_000_000L);
        assertThat(r.rows()).isEqualTo(1000);
        assertThat(r.mbPerSecond()).isCloseTo(50.0, within(1e-9));
        assertThat(r.rowsPerSecond()).isCloseTo(500.0, within(1e-9));
        assertThat(r.requestsPerSecond()).isCloseTo(50.0, within(1e-9));
        assertThat(r.p50Millis()).isCloseTo(50.0, within(0.1));
        assertThat(r.p99Millis()).isCloseTo(99.0, within(0.1));
        assertThat(r.maxMillis()).isCloseTo(100.0, within(0.1));
        assertThat(r.meanMillis()).isCloseTo(50.5, within(0.1));
        assertThat(r.squidHits()).isEqualTo(75);
        assertThat(r.squidMisses()).isEqualTo(25);
        assertThat(r.squidHitRatio()).isCloseTo(0.75, within(1e-9));
        assertThat(r.latency()).extracting(LatencyPoint::percentile).startsWith(0.0).endsWith(100.0);
        assertThat(r.latency()).extracting(LatencyPoint::millis).isSorted();
    }

    @Test
    void emptyStepHasNoHitRatioAndZeroRates() {
        StepResult r = new StepRecorder().result("x", Mode.DIRECT, 1, 0);
        assertThat(r.requests()).isZero();
        assertThat(r.requestsPerSecond()).isZero();
        assertThat(r.squidHitRatio()).isNull();
        assertThat(r.latency()).isEmpty();
    }

    @Test
    void failuresAreClassified() {
        assertThat(Failure.classify(new ConnectException("refused"))).isEqualTo(Failure.CONNECT_REFUSED);
        assertThat(Failure.classify(new HttpTimeoutException("t"))).isEqualTo(Failure.TIMEOUT);
        assertThat(Failure.classify(new RuntimeException(new SQLException("x")))).isEqualTo(Failure.DATABASE);
        assertThat(Failure.classify(new java.io.IOException("reset"))).isEqualTo(Failure.IO);
        assertThat(Failure.classify(new Failure.FailedRequest(Failure.CORRUPT, "x"))).isEqualTo(Failure.CORRUPT);
        assertThat(Failure.classify(new IllegalStateException("?"))).isEqualTo(Failure.OTHER);
        assertThat(Failure.ofStatus(503)).isEqualTo(Failure.HTTP_5XX);
        assertThat(Failure.ofStatus(404)).isEqualTo(Failure.HTTP_4XX);
        assertThat(Failure.ofStatus(301)).isEqualTo(Failure.HTTP_OTHER);
    }

    @Test
    void answersAreDecodedWholeAndCorruptionIsClassified() throws Exception {
        byte[] answer = java.nio.file.Files.readAllBytes(testdata("iovs_likeluis_2000.bin"));
        assertThat(HttpTarget.decodeAll(new java.io.ByteArrayInputStream(answer), answer.length)).isEqualTo(2000);
        byte[] truncated = java.util.Arrays.copyOf(answer, answer.length - 1);
        assertThatThrownBy(() -> HttpTarget.decodeAll(new java.io.ByteArrayInputStream(truncated), answer.length))
                .isInstanceOf(java.io.IOException.class);
        byte[] flipped = answer.clone();
        flipped[answer.length / 2] ^= 0x40;
        assertThatThrownBy(() -> HttpTarget.decodeAll(new java.io.ByteArrayInputStream(flipped), answer.length))
                .isInstanceOf(io.outpost.wire.CorruptAnswerException.class);
    }

    private static java.nio.file.Path testdata(String name) {
        for (java.nio.file.Path d = java.nio.file.Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
            java.nio.file.Path f = d.resolve("testdata").resolve(name);
            if (java.nio.file.Files.exists(f)) {
                return f;
            }
        }
        throw new IllegalStateException("testdata/" + name + " not found above the working directory");
    }

    @Test
    void prometheusCountersAreSummedOverLabels() {
        String text = """
                # HELP outpost_cache_loads_total answers computed from the database
                # TYPE outpost_cache_loads_total counter
                outpost_cache_loads_total 12.0
                outpost_cache_loads_total_other 5.0
                outpost_cache_hits_total 3.0
                """;
        assertThat(ServiceMetrics.sum(text, "outpost_cache_loads_total")).isEqualTo(12);
        assertThat(ServiceMetrics.sum("a{x=\"1\"} 2.0\na{x=\"2\"} 3.0\n", "a")).isEqualTo(5);
        assertThat(ServiceMetrics.sum("", "a")).isEqualTo(-1);
        assertThat(ServiceMetrics.sum("a{x=\"1\"} 2.0\na{x=\"2\"} 3.0\na 4.0\n", "a", "x=\"2\"")).isEqualTo(3);
    }

    @Test
    void databaseLoadsLeaveOutAnswersFromHeldRowsButCountTheirBuilds() {
        String text = "outpost_cache_loads_total 12.0\noutpost_rows_answers_total{api=\"native\"} 10.0\n"
                + "outpost_rows_answers_total{api=\"frontier\"} 40.0\noutpost_rows_builds_total 1.0\n";
        assertThat(ServiceMetrics.databaseLoads(text)).as("Frontier's answers from held rows were never cache loads")
                .isEqualTo(3);
        assertThat(ServiceMetrics.databaseLoads("outpost_cache_loads_total 7.0\n")).as("no held rows").isEqualTo(7);
        assertThat(ServiceMetrics.databaseLoads("")).isEqualTo(-1);
    }

    @Test
    void targetsCompareThroughputAtTheHighestCommonClientCount() {
        List<StepResult> steps = List.of(step("w", "direct", 1, 100), step("w", "direct", 4, 200),
                step("w", "proxied", 4, 170), step("w", "cached", 4, 2500), step("w", "cached", 8, 3000));
        List<RunReport.TargetCheck> t = Targets.evaluate(steps);
        assertThat(t).hasSize(2);
        assertThat(t.get(0).pass()).isTrue();       // 2500 / 200 = 12.5 >= 10
        assertThat(t.get(0).measured()).contains("at 4 clients").contains("12.50");
        assertThat(t.get(1).pass()).isTrue();       // 170 / 200 = 0.85 >= 1/1.2
        List<RunReport.TargetCheck> slow = Targets.evaluate(List.of(step("w", "direct", 4, 200), step("w", "proxied", 4, 150)));
        assertThat(slow.get(0).pass()).isNull();    // no cached step: not measured
        assertThat(slow.get(1).pass()).isFalse();   // 150 / 200 = 0.75 < 1/1.2
    }

    @Test
    void atlasTargetNeedsFullEfficiencyAndNoFailures() {
        StepResult ok = step("atlasPrompt", "cached", 20, 10).withAtlas(new AtlasStats(20, 1, 5, 2, 5, 40, 40, 1.0, 1, 2, 3));
        StepResult late = step("atlasPrompt", "direct", 20, 10).withAtlas(new AtlasStats(20, 1, 5, 2, 5, 40, 39, 39 / 40.0, 1, 2, 3));
        List<RunReport.TargetCheck> t = Targets.evaluate(List.of(ok, late));
        assertThat(t).extracting(RunReport.TargetCheck::pass).containsExactly(true, false);
        assertThat(AtlasStats.efficiency(39, 40)).isEqualTo(0.975);
        assertThat(AtlasStats.efficiency(0, 0)).isZero();
    }

    @Test
    void aStepWithFailedRequestsGivesNoRatioAndCountsAsAnError() {
        StepResult failing = failed(step("w", "proxied", 4, 500), Failure.WRONG_ROWS, 3);
        List<RunReport.TargetCheck> t = Targets.evaluate(List.of(step("w", "direct", 4, 200), failing));
        assertThat(t.get(1).pass()).isFalse();      // 500 / 200 would pass, but 3 answers were wrong
        assertThat(t.get(1).measured()).contains("not comparable").contains("3 failed requests in proxied")
                .doesNotContain("2.50");
        assertThat(Targets.errors(List.of(step("w", "direct", 4, 200), failing))).isEqualTo(3);
        // a snapshot that missed the ATLAS deadline fails that target, but is not a wrong answer
        StepResult late = failed(step("atlasPrompt", "cached", 20, 10), Failure.DEADLINE, 1);
        assertThat(Targets.errors(List.of(late))).isZero();
    }

    private static StepResult failed(StepResult s, Failure f, long n) {
        return new StepResult(s.workload(), s.mode(), s.clients(), s.requests(), s.ok() - n, n, Map.of(f.name(), n),
                List.of(f.name() + " example"), s.bytes(), s.rows(), s.elapsedSeconds(), s.mbPerSecond(),
                s.rowsPerSecond(), s.requestsPerSecond(), s.meanMillis(), s.p50Millis(), s.p90Millis(), s.p99Millis(),
                s.maxMillis(), s.latency(), s.squidHits(), s.squidMisses(), s.squidHitRatio(), s.dbQueries(), s.atlas());
    }

    static StepResult step(String w, String mode, int clients, double rps) {
        return new StepResult(w, mode, clients, 100, 100, 0, Map.of(), List.of(), 1_000_000, 1000, 100 / rps, 1, 10, rps,
                1, 1, 2, 3, 4, List.of(new LatencyPoint(0, 0.5), new LatencyPoint(50, 1), new LatencyPoint(99, 3)),
                0, 0, null, null, null);
    }
}
