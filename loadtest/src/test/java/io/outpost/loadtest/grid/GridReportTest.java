package io.outpost.loadtest.grid;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.server.pin.GenerationToken;
import io.outpost.testkit.TempDirs;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The grid report's judgement of job lines, without building a grid: failures, rows per generation, staleness. */
class GridReportTest {
    private static GridPlan plan(String... args) {
        GridPlan p = new GridPlan();
        new CommandLine(new Object() {
            @CommandLine.Mixin
            GridPlan plan = p;
        }).parseArgs(args);
        return p;
    }

    @Test
    void rowsAreJudgedAgainstTheGenerationEachJobRead() throws Exception {
        GridPlan plan = plan("--phase-seconds", "10", "--faults", "origin", "--out", "unused");
        List<GridReport.Phase> phases = GridReport.phases(plan, 1_000_000L);
        assertThat(phases).extracting(GridReport.Phase::fault).containsExactly(GridReport.Fault.NONE,
                GridReport.Fault.NONE, GridReport.Fault.KILL_ORIGIN, GridReport.Fault.NONE);
        // folder 0 got its first append at generation 200.5 (micros 200, sequence 5)
        GridReport.Write w = new GridReport.Write(0, GenerationToken.parse("200.5"), 1_015_000L);
        List<GridReport.JobLine> jobs = List.of(
                // before the append, rows without it: right
                GridReport.JobLine.parse("JOB c1 1 1 1000000 1001000 1 - 0=100.3:0 /v1/a"),
                // at the append's generation, rows with it: right, and the first to see it (ended 1017000)
                GridReport.JobLine.parse("JOB c1 2 0 1016000 1017000 1 - 0=200.5:1 -"),
                // at the append's generation but rows without it: wrong
                GridReport.JobLine.parse("JOB c2 3 0 1021000 1022000 1 - 0=200.5:0 -"),
                // rows matching neither: wrong
                GridReport.JobLine.parse("JOB c2 4 0 1025000 1026000 1 - 0=200.5:x -"),
                GridReport.JobLine.parse("JOB c2 5 0 1031000 1039000 0 timed_out - -"));
        GridReport r = new GridReport(plan, phases, jobs, List.of(w), List.of(), List.of(),
                new GridReport.HerdForwards(1, 1, 1));
        assertThat(r.failedJobs()).isEqualTo(1);
        assertThat(r.mismatches()).isEqualTo(2);
        assertThat(r.herdWithinBound()).isTrue();
        assertThat(r.passed()).isFalse();
        Path out = TempDirs.create("outpost-grid-report");
        try {
            String summary = r.write(out);
            assertThat(summary).contains("staleness: max 2.0 s")
                    .contains("target 0 failed jobs, 0 mismatches: 1, 2 -> FAIL");
            assertThat(out.resolve("report.html")).exists();
        } finally {
            TempDirs.delete(out);
        }
    }
}
