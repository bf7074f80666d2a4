package io.outpost.loadtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.outpost.store.workload.Workload;
import io.outpost.testkit.SquidProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Short runs at tiny scale against SQLite with the service in-process: counts add up, no failures. */
class EndToEndTest {
    static Path dir;
    static Environment env;

    @BeforeAll
    static void start() throws Exception {
        // Under target/ rather than a @TempDir: when the tests run as root, Squid runs as user proxy, which cannot
        // enter JUnit's owner-only temporary directories.
        dir = Path.of("target", "e2e-" + ProcessHandle.current().pid()).toAbsolutePath();
        env = Environment.open(new Environment.Options("sqlite", null, null, null, null, dir, 4, false, false));
        env.populate(Workload.SMALL_QUERIES, 0.01);   // 2 folders x 500 channels x 50 IOVs
        env.populate(Workload.LIKE_LUIS_1IOV, 0.01);  // 100 channels
    }

    @AfterAll
    static void stop() {
        if (env != null) {
            env.close();
        }
    }

    static LoadRun.Plan plan(List<Mode> modes, List<Mode> atlasModes) {
        return plan(modes, atlasModes, Duration.ZERO);
    }

    static LoadRun.Plan plan(List<Mode> modes, List<Mode> atlasModes, Duration warmup) {
        return new LoadRun.Plan(List.of(Workload.SMALL_QUERIES, Workload.LIKE_LUIS_1IOV), modes, List.of(1, 3), 0.01,
                40, Duration.ofSeconds(20), 2, warmup, Duration.ofSeconds(20), atlasModes,
                new AtlasModel.Params(3, Duration.ofMillis(100), Duration.ofMillis(300), 2, Duration.ofSeconds(5), 0.01),
                Duration.ofMinutes(2), false);
    }

    @Test
    void directAndProxiedRunsCountEveryRequest() throws Exception {
        RunReport r = LoadRun.run(env, plan(List.of(Mode.DIRECT, Mode.PROXIED), List.of()), "test");
        assertThat(r.steps()).hasSize(2 * 2 * 2);
        for (StepResult s : r.steps()) {
            assertThat(s.failed()).as("failures in %s: %s", s, s.failureExamples()).isZero();
            assertThat(s.requests()).isEqualTo(40).isEqualTo(s.ok() + s.failed());
            long rowsPerQuery = s.workload().equals("smallQueries") ? 500 : 100;
            assertThat(s.rows()).isEqualTo(40 * rowsPerQuery);
            assertThat(s.bytes()).isPositive();
            assertThat(s.requestsPerSecond()).isPositive();
            if (s.mode().equals("direct")) {
                assertThat(s.dbQueries()).isEqualTo(40L);
            } else {
                // every proxied URL is distinct, so every request is an answer computed by the service, but from its
                // held IOV rows: the database is read only to build them (once per folder, usually in the warm-up)
                assertThat(s.dbQueries()).isBetween(0L, 2L);
            }
        }
        assertThat(r.targets()).extracting(RunReport.TargetCheck::name).anyMatch(n -> n.startsWith("proxied within"));
        Path out = dir.resolve("report");
        assertThat(Files.readString(ReportWriter.writeHtml(r, out))).contains("smallQueries", "likeLuis1iov");
        assertThat(ReportWriter.readJson(ReportWriter.writeJson(r, out)).steps()).hasSize(8);
    }

    @Test
    void warmUpIsReportedButNotMeasured() throws Exception {
        RunReport r = LoadRun.run(env, plan(List.of(Mode.PROXIED), List.of(), Duration.ofSeconds(1)), "test");
        assertThat(r.steps()).hasSize(2 * 2).allSatisfy(s -> assertThat(s.requests()).isEqualTo(40));
        // one warm-up per workload, at the largest client count; it runs for its time, and every request is counted;
        // each a distinct URL, answered from the service's held IOV rows (built from the database at most once per folder)
        assertThat(r.notes()).filteredOn(n -> n.startsWith("warm-up")).hasSize(2).allSatisfy(n -> {
            var m = java.util.regex.Pattern.compile("(\\d+) requests at 3 clients in [0-9.]+ s, 0 failed, (\\d+) database queries")
                    .matcher(n);
            assertThat(m.find()).as(n).isTrue();
            assertThat(Long.parseLong(m.group(1))).isPositive();
            assertThat(Long.parseLong(m.group(2))).as("database queries").isBetween(0L, 2L).isLessThan(Long.parseLong(m.group(1)));
        });
    }

    @Test
    void cachedRunThroughSquidHitsTheCache() throws Exception {
        assumeTrue(SquidProcess.binary().isPresent(),
                "squid is not installed (apt-get install squid): skipping the cached-mode test");
        RunReport r = LoadRun.run(env, plan(List.of(Mode.CACHED), List.of()), "test");
        assertThat(r.steps()).hasSize(4);
        for (StepResult s : r.steps()) {
            assertThat(s.failed()).as("failures: %s", s.failureExamples()).isZero();
            assertThat(s.requests()).isEqualTo(40);
            assertThat(s.squidHits() + s.squidMisses()).isEqualTo(40);
        }
        // the second step of each workload repeats the same URLs: all of them are Squid hits, none reaches the DB
        StepResult second = r.steps().get(1);
        assertThat(second.squidHitRatio()).isEqualTo(1.0);
        assertThat(second.dbQueries()).isZero();
    }

    @Test
    void atlasModelFetchesEverySnapshotInTime() throws Exception {
        env.populate(Workload.ATLAS_PROMPT, 0.01);
        RunReport r = LoadRun.run(env, new LoadRun.Plan(List.of(), List.of(), List.of(1), 0.01, 1, Duration.ofSeconds(1), 1,
                Duration.ZERO, Duration.ofSeconds(20), List.of(Mode.PROXIED), plan(List.of(), List.of()).atlas(), Duration.ofMinutes(2), false), "test");
        StepResult s = r.steps().getFirst();
        assertThat(s.atlas().snapshots()).isEqualTo(6);
        assertThat(s.atlas().inDeadline()).isEqualTo(6);
        assertThat(s.atlas().efficiency()).isEqualTo(1.0);
        assertThat(s.failed()).isZero();
        assertThat(s.ok()).isEqualTo(6);  // one folder per snapshot at this scale
        assertThat(r.targets()).singleElement().extracting(RunReport.TargetCheck::pass).isEqualTo(true);
    }
}
