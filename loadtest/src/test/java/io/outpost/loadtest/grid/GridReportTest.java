package io.outpost.loadtest.grid;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.server.pin.GenerationToken;
import io.outpost.testkit.TempDirs;
import java.nio.file.Files;
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
                // at the append's generation, rows with it: right; its state arrived at once, then it failed over
                // for 12 s (the first job to end having seen it ended 7 s after the commit: job 3)
                GridReport.JobLine.parse("JOB c1 2 0 1016000 1029000 1 - 0=200.5:1 - java 1016300"),
                // given a state without the append 0.8 s after its commit: the staleness (rows right for it)
                GridReport.JobLine.parse("JOB c1 10 0 1015500 1016000 1 - 0=100.3:0 - java 1015800"),
                // at the append's generation but rows without it: wrong
                GridReport.JobLine.parse("JOB c2 3 0 1021000 1022000 1 - 0=200.5:0 -"),
                // rows matching neither: wrong
                GridReport.JobLine.parse("JOB c2 4 0 1025000 1026000 1 - 0=200.5:x -"),
                GridReport.JobLine.parse("JOB c2 5 0 1031000 1039000 0 timed_out - -"),
                // a COOL job (no generation): rows before the append are a state the folder had, also after it
                GridReport.JobLine.parse("JOB c1 6 0 1020000 1021000 2 - 0=nogen:0 - cool"),
                // a C++ job seeing the append before it was committed: wrong
                GridReport.JobLine.parse("JOB c2 7 0 1010000 1011000 -1 - 0=nogen:1 - cpp"),
                // a C++ job seeing it after: right; it does not count as the first to see the write
                GridReport.JobLine.parse("JOB c2 8 0 1015500 1016000 -1 - 0=nogen:1 - cpp"),
                GridReport.JobLine.parse("JOB c1 9 0 1032000 1040000 0 Frontier_payload_error - - cool"));
        // the herd: origin1 loaded 3 answers between the samples around it, origin2 none; 1 folder, no write then
        List<GridReport.Sample> samples = List.of(new GridReport.Sample("origin1", 999_000L, 0, 4),
                new GridReport.Sample("origin2", 999_000L, 0, 0), new GridReport.Sample("origin1", 1_002_000L, 1, 7),
                new GridReport.Sample("origin2", 1_002_000L, 0, 0));
        GridReport r = new GridReport(plan("--phase-seconds", "10", "--faults", "origin", "--out", "unused",
                "--folders", "1"), phases, jobs, List.of(w), samples, List.of(),
                new GridReport.HerdForwards(1, 1, 1), "C++ client jobs: on the last 1 client host(s)",
                java.util.Map.of("origin1", 0L, "origin2", 0L));
        assertThat(r.failedJobs()).isEqualTo(2);
        assertThat(r.mismatches()).isEqualTo(3);
        assertThat(r.herdLoads()).isEqualTo(new GridReport.HerdLoads(3, 3, 1, 999_000L, 1_002_000L,
                java.util.Map.of("origin1", 3L, "origin2", 0L)));
        assertThat(r.herdLoads().withinBound()).isFalse();
        assertThat(r.herdWithinBound()).isTrue();
        assertThat(r.passed()).isFalse();
        Path out = TempDirs.create("outpost-grid-report");
        try {
            String summary = r.write(out);
            assertThat(summary).contains("staleness: max 0.8 s from a commit to the last state a job was given "
                    + "without it (bound state max-age + poll = 15 s) -> PASS; commit to the end of the first job that "
                    + "read it, with the job's own time: max 7.0 s")
                    .contains("target 0 failed jobs, 0 mismatches: 2, 3 -> FAIL")
                    .contains("COOL at-time jobs (through Frontier): 2, 1 failed")
                    .contains("C++ client jobs: on the last 1 client host(s): 2 jobs, 0 failed")
                    .contains("first failure of a cool job: Frontier_payload_error")
                    .contains("herd database loads: 3 in 3.0 s around the herd, at most 3 by one origin {origin1=3, origin2=0}, for 1 answers");
            assertThat(out.resolve("report.html")).exists();
        } finally {
            TempDirs.delete(out);
        }
    }
    @Test
    void writesWhileTheReplicaDoesNotReplayAreReportedApartFromTheStalenessBound() throws Exception {
        GridPlan plan = plan("--phase-seconds", "10", "--faults", "replica", "--out", "unused", "--folders", "2");
        List<GridReport.Phase> phases = GridReport.phases(plan, 1_000_000L);
        assertThat(phases.get(2).fault()).isEqualTo(GridReport.Fault.REPLICA);
        assertThat(phases.get(2).startMillis()).isEqualTo(1_020_000L);
        // folder 0 written in the baseline, seen 2 s later; folder 1 written while the replica is paused, seen 40 s later
        List<GridReport.Write> writes = List.of(new GridReport.Write(0, GenerationToken.parse("200.5"), 1_012_000L),
                new GridReport.Write(1, GenerationToken.parse("300.5"), 1_021_000L));
        List<GridReport.JobLine> jobs = List.of(
                GridReport.JobLine.parse("JOB c1 1 0 1013000 1014000 1 - 0=200.5:1,1=100.3:0 - java 1013500"),
                // given a state without folder 0's write 2 s after it
                GridReport.JobLine.parse("JOB c2 3 0 1013800 1016000 1 - 0=100.3:0,1=100.3:0 - java 1014000"),
                // without folder 1's write 38 s after it: the replica did not replay
                GridReport.JobLine.parse("JOB c2 4 0 1058000 1059500 1 - 0=200.5:1,1=100.3:0 - java 1059000"),
                GridReport.JobLine.parse("JOB c1 2 0 1060000 1061000 1 - 0=200.5:1,1=300.5:1 - java 1060500"));
        List<GridReport.Sample> samples = List.of(new GridReport.Sample("origin1", 999_000L, 0, 0),
                new GridReport.Sample("origin1", 1_002_000L, 0, 0));
        GridReport r = new GridReport(plan, phases, jobs, writes, samples, List.of(),
                new GridReport.HerdForwards(1, 1, 1), "C++ client jobs: none",
                java.util.Map.of("origin1", 2L, "origin2", 0L));
        Path out = TempDirs.create("outpost-grid-report");
        try {
            String summary = r.write(out);
            assertThat(summary).contains("staleness: max 2.0 s from a commit to the last state a job was given "
                    + "without it (bound state max-age + poll = 15 s) -> PASS; writes committed while the replica did "
                    + "not replay (or a poll interval before it was killed): given without them for at most 38.0 s "
                    + "(until it replays again)");
            // refusals by the per-client limit fail the run: the origins trust their Squids
            assertThat(summary).contains("per-client refusals: 2 {origin1=2, origin2=0}").contains("-> FAIL");
            assertThat(r.passed()).isFalse();
            var json = tools.jackson.databind.json.JsonMapper.builder().build()
                    .readTree(Files.readString(out.resolve("summary.json")));
            assertThat(json.get("perClientRefusals").asLong()).isEqualTo(2);
            assertThat(json.get("perClientRefusalsByOrigin").get("origin1").asLong()).isEqualTo(2);
            assertThat(json.get("passed").asBoolean()).isFalse();
            assertThat(json.get("phases").size()).isEqualTo(r.phaseCount());
            assertThat(json.get("staleness").get("maxSeconds").asDouble()).isEqualTo(2.0);
        } finally {
            TempDirs.delete(out);
        }
    }

    /**
     * With phases shorter than two poll intervals the replica is killed less than a poll interval after its replay
     * paused: a write committed just before the pause may not have been polled by then, and waits for the replica.
     */
    @Test
    void aWriteShortlyBeforeTheReplicaIsKilledWaitsForIt() throws Exception {
        GridPlan plan = plan("--phase-seconds", "6", "--faults", "origin,replica", "--out", "unused", "--folders", "2");
        List<GridReport.Phase> phases = GridReport.phases(plan, 1_000_000L);
        // origin1 killed 1012000-1018000; replica paused at 1018000, killed at 1021000: writes from 1016000 wait
        List<GridReport.Write> writes = List.of(new GridReport.Write(0, GenerationToken.parse("200.5"), 1_015_000L),
                new GridReport.Write(1, GenerationToken.parse("300.5"), 1_016_500L));
        List<GridReport.JobLine> jobs = List.of(
                GridReport.JobLine.parse("JOB c1 1 0 1017900 1018100 1 - 0=100.3:0,1=100.3:0 - java 1018000"),
                GridReport.JobLine.parse("JOB c1 2 0 1033400 1033600 1 - 0=200.5:1,1=100.3:0 - java 1033500"),
                GridReport.JobLine.parse("JOB c1 3 0 1035000 1035200 1 - 0=200.5:1,1=300.5:1 - java 1035100"));
        GridReport r = new GridReport(plan, phases, jobs, writes, List.of(), List.of(),
                new GridReport.HerdForwards(1, 1, 1), "C++ client jobs: none", java.util.Map.of());
        assertThat(r.maxStalenessSeconds()).isEqualTo(3.0);
        assertThat(r.stalenessWithinBound()).isTrue();
        Path out = TempDirs.create("outpost-grid-report");
        try {
            assertThat(r.write(out)).contains("staleness: max 3.0 s").contains("given without them for at most 17.0 s");
        } finally {
            TempDirs.delete(out);
        }
    }

    /**
     * An origin learns of a write at its next poll: one committed less than a poll interval before the herd's window
     * can make a new generation inside it, and is one more answer the origin may load; an older one cannot.
     */
    @Test
    void aWriteAPollIntervalBeforeTheHerdIsAnAnswerItCouldAsk() {
        for (long committed : new long[] {996_500L, 993_000L}) {
            GridPlan plan = plan("--phase-seconds", "10", "--faults", "origin", "--out", "unused", "--folders", "1");
            List<GridReport.Phase> phases = GridReport.phases(plan, 1_000_000L);
            List<GridReport.JobLine> jobs = List.of(
                    GridReport.JobLine.parse("JOB c1 1 1 1000000 1001000 1 - 0=200.5:1 /v1/a java 1000500"));
            // origin1 loaded the folder twice in the window: at the generation before the write and after it
            List<GridReport.Sample> samples = List.of(new GridReport.Sample("origin1", 999_000L, 0, 0),
                    new GridReport.Sample("origin2", 999_000L, 0, 0), new GridReport.Sample("origin1", 1_002_000L, 1, 2),
                    new GridReport.Sample("origin2", 1_002_000L, 0, 0));
            GridReport r = new GridReport(plan, phases, jobs,
                    List.of(new GridReport.Write(0, GenerationToken.parse("200.5"), committed)), samples, List.of(),
                    new GridReport.HerdForwards(1, 1, 1), "C++ client jobs: none", java.util.Map.of());
            boolean withinAPoll = committed >= 999_000L - GridReport.POLL_SECONDS * 1000L;
            assertThat(r.herdLoads().answers()).isEqualTo(withinAPoll ? 2 : 1);
            assertThat(r.herdLoads().withinBound()).isEqualTo(withinAPoll);
        }
    }

    /** A run that meets every other target passes with a state 14 s old and fails with one 16 s old (bound 15 s). */
    @Test
    void stalenessOverItsBoundFailsTheRun() throws Exception {
        for (long lagMillis : new long[] {14_000, 16_000}) {
            GridPlan plan = plan("--phase-seconds", "30", "--faults", "origin", "--out", "unused", "--folders", "1");
            List<GridReport.Phase> phases = GridReport.phases(plan, 1_000_000L);
            GridReport.Write w = new GridReport.Write(0, GenerationToken.parse("200.5"), 1_070_000L);
            List<GridReport.JobLine> jobs = List.of(
                    GridReport.JobLine.parse("JOB c1 1 1 1000000 1001000 1 - 0=100.3:0 /v1/a java 1000500"),
                    // in the origin1 phase: a state without the write, then one with it
                    GridReport.JobLine.parse("JOB c1 2 0 1080000 1090000 1 - 0=100.3:0 - java "
                            + (1_070_000L + lagMillis)),
                    GridReport.JobLine.parse("JOB c1 3 0 1087000 1088000 1 - 0=200.5:1 - java 1087500"),
                    // the second client host ran jobs in every phase too
                    GridReport.JobLine.parse("JOB c2 4 1 1000000 1001000 1 - 0=100.3:0 /v1/a java 1000500"),
                    GridReport.JobLine.parse("JOB c2 5 0 1040000 1040100 1 - 0=100.3:0 - java 1040050"),
                    GridReport.JobLine.parse("JOB c2 6 0 1089000 1089100 1 - 0=200.5:1 - java 1089050"),
                    GridReport.JobLine.parse("JOB c2 7 0 1091000 1091100 1 - 0=200.5:1 - cool"),
                    GridReport.JobLine.parse("JOB c1 8 0 1092000 1092100 1 - 0=200.5:1 - cool"),
                    GridReport.JobLine.parse("JOB c1 9 0 1041000 1041100 1 - 0=100.3:0 - cool"));
            List<GridReport.Sample> samples = List.of(new GridReport.Sample("origin1", 999_000L, 0, 0),
                    new GridReport.Sample("origin2", 999_000L, 0, 0), new GridReport.Sample("origin1", 1_002_000L, 1, 1),
                    new GridReport.Sample("origin2", 1_002_000L, 0, 0));
            GridReport r = new GridReport(plan, phases, jobs, List.of(w), samples, List.of(),
                    new GridReport.HerdForwards(1, 1, 1), "C++ client jobs: none",
                    java.util.Map.of("origin1", 0L, "origin2", 0L));
            assertThat(r.failedJobs()).isZero();
            assertThat(r.mismatches()).isZero();
            assertThat(r.maxStalenessSeconds()).isEqualTo(lagMillis / 1000.0);
            assertThat(r.stalenessWithinBound()).isEqualTo(lagMillis <= 15_000);
            assertThat(r.phasesMissingAHost()).isEmpty();
            assertThat(r.passed()).as("lag %d ms", lagMillis).isEqualTo(lagMillis <= 15_000);
        }
        // a client host that stopped (its jobs end in the baseline) fails the run however good the rest
        GridPlan plan = plan("--phase-seconds", "30", "--faults", "origin", "--out", "unused", "--folders", "1");
        List<GridReport.JobLine> jobs = List.of(
                GridReport.JobLine.parse("JOB c1 1 1 1000000 1001000 1 - 0=100.3:0 /v1/a java 1000500"),
                GridReport.JobLine.parse("JOB c2 2 1 1000000 1001000 1 - 0=100.3:0 /v1/a java 1000500"),
                GridReport.JobLine.parse("JOB c1 3 0 1040000 1040100 1 - 0=100.3:0 - java 1040050"),
                GridReport.JobLine.parse("JOB c2 4 0 1041000 1041100 1 - 0=100.3:0 - java 1041050"),
                GridReport.JobLine.parse("JOB c1 5 0 1070000 1070100 1 - 0=100.3:0 - java 1070050"),
                GridReport.JobLine.parse("JOB c1 6 0 1095000 1095100 1 - 0=100.3:0 - java 1095050"));
        GridReport r = new GridReport(plan, GridReport.phases(plan, 1_000_000L), jobs, List.of(), List.of(),
                List.of(), new GridReport.HerdForwards(1, 1, 1), "C++ client jobs: none", java.util.Map.of());
        assertThat(r.phasesMissingAHost()).containsExactly("origin1 killed", "after (no faults, no writes at the end)");
        assertThat(r.passed()).isFalse();
    }
}
