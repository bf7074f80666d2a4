package io.outpost.loadtest;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class LoadTestCliTest {

    @Test
    void populateRefusesTheThrowawayPostgresWithAReason() {
        StringWriter err = new StringWriter();
        CommandLine cli = new CommandLine(new LoadTestCli()).setErr(new PrintWriter(err));
        int code = cli.execute("populate", "--workload", "smallQueries");
        assertThat(code).isEqualTo(2);
        assertThat(err.toString()).contains("populate needs --db-url", "--db sqlite");
    }

    @Test
    void badBoundsAreRejectedBeforeAnythingStarts() {
        StringWriter err = new StringWriter();
        CommandLine cli = new CommandLine(new LoadTestCli()).setErr(new PrintWriter(err));
        assertThat(cli.execute("run", "--workload", "smallQueries", "--clients", "0")).isNotZero();
        assertThat(err.toString()).contains("--clients must be between 1 and 1000");
        assertThat(cli.execute("run", "--workload", "smallQueries", "--slices", "0")).isEqualTo(2);
        assertThat(err.toString()).contains("--slices must be 1 to 100");
        assertThat(cli.execute("run", "--workload", "coolFlat")).isEqualTo(2);
        assertThat(err.toString()).contains("workload coolFlat is not run by the load generator");
    }
}
