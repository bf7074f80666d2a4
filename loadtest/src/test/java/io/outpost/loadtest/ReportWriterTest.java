package io.outpost.loadtest;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportWriterTest {

    static RunReport sample() {
        List<StepResult> steps = List.of(MetricsTest.step("smallQueries", "direct", 1, 100),
                MetricsTest.step("smallQueries", "direct", 4, 200), MetricsTest.step("smallQueries", "proxied", 4, 190),
                MetricsTest.step("smallQueries", "cached", 4, 2100),
                MetricsTest.step("atlasPrompt", "cached", 20, 30).withAtlas(new AtlasStats(20, 1, 5, 2, 5, 40, 40, 1, 10, 20, 30)));
        return new RunReport("outpost-loadtest", "2026-01-01T00:00:00Z", "outpost-loadtest compare --scale 0.1", 0.1,
                Map.of("cores", "2"), steps, Targets.evaluate(steps), List.of("a <note>"));
    }

    @Test
    void jsonRoundTrips(@TempDir Path dir) throws Exception {
        RunReport r = sample();
        Path p = ReportWriter.writeJson(r, dir);
        RunReport back = ReportWriter.readJson(p);
        assertThat(back.steps()).hasSize(5);
        assertThat(back.steps().get(4).atlas().efficiency()).isEqualTo(1.0);
        assertThat(back.targets()).extracting(RunReport.TargetCheck::pass).containsExactly(true, true, true);
        assertThat(Files.readString(p)).contains("\"requestsPerSecond\"").contains("\"squidHitRatio\"");
    }

    @Test
    void htmlIsSelfContainedWithCharts(@TempDir Path dir) throws Exception {
        String html = Files.readString(ReportWriter.writeHtml(sample(), dir));
        assertThat(html).startsWith("<!DOCTYPE html>").endsWith("</html>\n");
        assertThat(html).contains("throughput against clients", "latency distribution", "modes side by side",
                "ATLAS prompt-reconstruction model", "PASS");
        assertThat(html.split("<svg ", -1)).hasSize(1 + 4);
        // no external resources: the only URL is the SVG namespace
        assertThat(html.replace("http://www.w3.org/2000/svg", "")).doesNotContain("http://", "https://", "<script", "<link");
        assertThat(html).contains("a &lt;note&gt;").doesNotContain("a <note>");
    }

    @Test
    void summaryTableListsEveryStepAndTarget() {
        String s = ReportWriter.summary(sample());
        assertThat(s.lines().filter(l -> l.startsWith("smallQueries"))).hasSize(4);
        assertThat(s).contains("atlasPrompt", "[PASS] cached >= 10x direct", "100.0");
    }
}
