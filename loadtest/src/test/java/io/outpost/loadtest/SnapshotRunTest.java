package io.outpost.loadtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.outpost.testkit.SquidProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A short snapshot run through a real Squid with the writer on SQLite: every job checked, every write seen. */
class SnapshotRunTest {

    @Test
    void jobsReadConsistentSnapshotsWhileTheWriterAppends() throws Exception {
        assumeTrue(SquidProcess.binary().isPresent(),
                "squid is not installed (apt-get install squid): skipping the snapshot run");
        // Under target/: Squid, running as user proxy when the tests run as root, cannot enter JUnit's temp dirs.
        Path dir = Path.of("target", "snapshot-" + ProcessHandle.current().pid()).toAbsolutePath();
        SnapshotModel model = new SnapshotModel(5, 2, 3, 100, 1000);
        SnapshotRun.Params p = new SnapshotRun.Params(model, 40, Duration.ofMillis(150), Duration.ofMillis(700), 1,
                Duration.ofSeconds(2), Duration.ofMillis(1500), Duration.ofSeconds(20));
        SnapshotRun.Result r;
        try (Environment env = Environment.open(new Environment.Options("sqlite", null, null, null, null, dir, 4, false,
                false))) {
            r = SnapshotRun.run(env, p);
        }
        assertThat(r.jobs()).hasSize(40).allSatisfy(j -> {
            assertThat(j.error()).as("job %d", j.index()).isNull();
            assertThat(j.mismatches()).as("job %d", j.index()).isZero();
            assertThat(j.requests()).as("job %d", j.index()).isBetween(1, 1 + model.largeFolders());
            assertThat(j.bytes()).isPositive();
        });
        assertThat(r.writes()).isNotEmpty();
        assertThat(r.pinnedSent()).isPositive();
        assertThat(r.pinnedAtService()).isLessThan(r.pinnedSent());
        String summary = SnapshotRun.report(r, dir.resolve("out"));
        assertThat(summary).contains("0 mismatching folders", "target requests/job");
        assertThat(Files.readAllLines(dir.resolve("out").resolve("snapshot-jobs.csv"))).hasSize(41);
    }
}
