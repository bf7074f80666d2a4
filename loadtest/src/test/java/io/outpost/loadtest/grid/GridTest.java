package io.outpost.loadtest.grid;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.outpost.testkit.SquidProcess;
import io.outpost.testkit.TempDirs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestReporter;
import picocli.CommandLine;

/**
 * The grid in a box at a small scale, every process real (PostgreSQL primary and replica, two Outpost origins, three
 * Squids, two client hosts, the writer), each on its own network namespace: a herd of 40 jobs, then the faults one
 * after the other (an origin killed, the replica paused then killed, a site Squid killed, the regional Squid cut off
 * from the origins, a site link losing packets). Jobs of three kinds: Java snapshot jobs, COOL at-time reads through
 * the Frontier endpoint, and (where the C++ client is built) snapshot jobs of the C++ client on the second host;
 * under {@code ./outpost test}, which builds that client first, a missing C++ client fails the test, elsewhere the
 * test says that it runs without C++ jobs.
 * Every job must succeed, every job's rows must be the data at the generation it read (COOL and C++ jobs: a state
 * the folder had), the herd must reach the origins once per URL and the database once per answer, and no job may
 * be given a state without a write a poll interval + the state max-age after its commit. The rolling
 * restart of everything is left to the full run ({@code outpost-loadtest grid}): it waits for two origin start-ups.
 */
class GridTest {
    /** Set by {@code ./outpost test}, which builds the C++ client's tool before the Maven tests. */
    static final String REQUIRE_CPP = "OUTPOST_TEST_REQUIRE_CPP_CLI";

    @Test
    void jobsSurviveEveryFaultAndReadOnlyTheDataOfTheirGeneration(TestReporter reporter) throws Exception {
        Optional<String> why = GridNetwork.unavailable();
        assumeTrue(why.isEmpty(), () -> "the grid cannot be built here: " + why.orElse(""));
        assumeTrue(SquidProcess.installed(), SquidProcess.NOT_INSTALLED);
        boolean cpp = GridCppJob.find().isPresent();
        assertThat(cpp || System.getenv(REQUIRE_CPP) == null).as("%s is set but the C++ client's tool is not at %s"
                + " (./outpost test builds it before the Maven tests)", REQUIRE_CPP, GridCppJob.BUILT_CLI).isTrue();
        if (!cpp) {
            String skipped = "no C++ client jobs: " + GridCppJob.BUILT_CLI + " is not built (client-cpp/run-tests.sh"
                    + " or ./outpost test builds it)";
            reporter.publishEntry("GridTest", skipped);
            System.out.println("GridTest: " + skipped);
        }
        Path out = TempDirs.create("outpost-grid");
        try {
            int rc = new CommandLine(new GridCommand()).execute("--out", out.toString(), "--herd-jobs", "40",
                    "--phase-seconds", "6", "--partition-seconds", "6", "--lead-seconds", "15", "--quiet-seconds", "5",
                    "--stagger-ms", "500", "--faults", "origin,replica,site-squid,partition,site-link");
            Path summary = out.resolve("summary.txt");
            assertThat(summary).as("the run wrote its summary (exit %d)", rc).exists();
            String text = Files.readString(summary);
            assertThat(text).as(text).contains("target 0 failed jobs, 0 mismatches: 0, 0 -> PASS");
            assertThat(text).as(text).containsPattern("herd: 40 jobs .* -> PASS");
            assertThat(text).as(text).containsPattern("herd database loads: .* -> PASS");
            // a write is in every state given out a poll interval + the state max-age after its commit
            assertThat(text).as(text).containsPattern("staleness: max .* -> PASS");
            // every second job after the herd reads as COOL does; failures and mismatches are in the totals above
            assertThat(text).as(text).containsPattern("COOL at-time jobs \\(through Frontier\\): [1-9][0-9]*, 0 failed");
            if (cpp) {
                assertThat(text).as(text).containsPattern("C\\+\\+ client jobs: on the last 1 .*: [1-9][0-9]* jobs, 0 failed");
            } else {
                assertThat(text).as(text).contains("C++ client jobs: none, the C++ client is not built");
            }
            assertThat(rc).as(text).isZero();
            assertThat(out.resolve("report.html")).exists();
            // the origins trust the Squids as docs/operations.md tells a site: the Frontier's per-client limit counts
            // the job hosts behind them, not the regional Squid as one client
            assertThat(text).as(text).containsPattern("per-client refusals: 0 .* -> PASS");
            for (String origin : new String[] {"origin1", "origin2"}) {
                assertThat(Files.readString(out.resolve("logs").resolve(origin + ".log"),
                        java.nio.charset.StandardCharsets.ISO_8859_1))
                        .as("%s saw its Squids as trusted (no warning about an untrusted cache)", origin)
                        .doesNotContain("which is not in outpost.trusted-proxies");
            }
            var json = tools.jackson.databind.json.JsonMapper.builder().build()
                    .readTree(Files.readString(out.resolve("summary.json")));
            assertThat(json.get("perClientRefusals").asLong()).as(text).isZero();
            assertThat(json.get("passed").asBoolean()).as(text).isTrue();
        } finally {
            TempDirs.delete(out);
        }
    }
}
