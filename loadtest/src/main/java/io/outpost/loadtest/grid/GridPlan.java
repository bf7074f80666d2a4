package io.outpost.loadtest.grid;

import io.outpost.loadtest.SnapshotModel;
import io.outpost.loadtest.SnapshotModelOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** The grid run's size and timing, shared by the command that builds the network and the driver inside it. */
public final class GridPlan {
    @Option(names = "--out", defaultValue = "target/grid", description = "report and logs. Default: ${DEFAULT-VALUE}")
    Path out;
    @Option(names = "--client-hosts", defaultValue = "2", description = "client hosts. Default: ${DEFAULT-VALUE}")
    int clientHosts;
    @Option(names = "--herd-jobs", defaultValue = "2000",
            description = "jobs starting in the same second at the run's start, over all client hosts. Default: ${DEFAULT-VALUE}")
    int herdJobs;
    @Option(names = "--stagger-ms", defaultValue = "200",
            description = "after the herd, each client host starts one job this often. Default: ${DEFAULT-VALUE}")
    long staggerMs;
    @Option(names = "--phase-seconds", defaultValue = "60", description = "length of each fault's phase. Default: ${DEFAULT-VALUE}")
    int phaseSeconds;
    @Option(names = "--partition-seconds", defaultValue = "30",
            description = "how long the regional Squid is cut off from the origins. Default: ${DEFAULT-VALUE}")
    int partitionSeconds;
    @Option(names = "--lead-seconds", defaultValue = "25",
            description = "from starting the client hosts to the herd (their JVMs start meanwhile). Default: ${DEFAULT-VALUE}")
    int leadSeconds;
    @Option(names = "--quiet-seconds", defaultValue = "15",
            description = "no writes and no new jobs in the run's last seconds, so every write can be seen. Default: ${DEFAULT-VALUE}")
    int quietSeconds;
    @Option(names = "--write-period-ms", defaultValue = "2000", description = "the writer's period. Default: ${DEFAULT-VALUE}")
    long writePeriodMs;
    @Mixin
    SnapshotModelOptions model = new SnapshotModelOptions(8, 2, 5, 50, 100);
    @Option(names = "--faults", split = ",", defaultValue = "origin,replica,site-squid,partition,site-link,restart",
            description = "the faults, in this order of phases: origin (kill origin1), replica (pause its replay, then "
                    + "kill it), site-squid (kill site1), partition (regional Squid from the origins), site-link "
                    + "(200 ms, 1 %% loss on site1), restart (everything, one part after the other). Default: ${DEFAULT-VALUE}")
    List<String> faults;
    @Option(names = "--cool-every", defaultValue = "2",
            description = "every n-th job after the herd reads as COOL does, at-time through Frontier; 0: none. Default: ${DEFAULT-VALUE}")
    int coolEvery;
    @Option(names = "--cpp-hosts", defaultValue = "1",
            description = "client hosts (the last ones) whose snapshot jobs after the herd use the C++ client's "
                    + GridCppJob.BUILT_CLI + " when it is built (else Java, and the report says so). Default: ${DEFAULT-VALUE}")
    int cppHosts;
    @Option(names = "--state-max-age-seconds", defaultValue = "10",
            description = "the service's state max-age, for the staleness bound (+ 5 s poll). Default: ${DEFAULT-VALUE}")
    int stateMaxAgeSeconds;

    SnapshotModel model() {
        return model.model();
    }

    List<String> modelArgs() {
        return model.args();
    }

    /** The same plan as arguments, for the driver's command line. */
    List<String> args() {
        List<String> a = new ArrayList<>(List.of("--out", out.toAbsolutePath().toString(), "--client-hosts",
                Integer.toString(clientHosts), "--herd-jobs", Integer.toString(herdJobs), "--stagger-ms",
                Long.toString(staggerMs), "--phase-seconds", Integer.toString(phaseSeconds), "--partition-seconds",
                Integer.toString(partitionSeconds), "--lead-seconds", Integer.toString(leadSeconds), "--quiet-seconds",
                Integer.toString(quietSeconds), "--write-period-ms", Long.toString(writePeriodMs),
                "--state-max-age-seconds", Integer.toString(stateMaxAgeSeconds), "--cool-every",
                Integer.toString(coolEvery), "--cpp-hosts", Integer.toString(cppHosts), "--faults", String.join(",", faults)));
        a.addAll(modelArgs());
        return a;
    }

    /** The longest the whole run may take: every phase, the lead, start-up and the report, with room to spare. */
    int boundSeconds() {
        return leadSeconds + 8 * phaseSeconds + (faults.contains("restart") ? 900 : 300);
    }
}
