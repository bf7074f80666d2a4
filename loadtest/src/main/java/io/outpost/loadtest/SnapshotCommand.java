package io.outpost.loadtest;

import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code outpost-loadtest snapshot}: the ATLAS prompt model through snapshot sessions and Squid, with a writer. */
@Command(name = "snapshot", mixinStandardHelpOptions = true,
        description = "Jobs read snapshots through Squid while a writer appends IOVs; per-job requests, bytes and wall "
                + "time, pinned hit ratio, database loads, staleness, and every row checked.")
final class SnapshotCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;
    @Mixin
    LoadTestCli.Target target;
    @Option(names = "--jobs", defaultValue = "300", description = "jobs, one snapshot each. Default: ${DEFAULT-VALUE}")
    int jobs;
    @Option(names = "--stagger-ms", defaultValue = "200", description = "start of one job to the next. Default: ${DEFAULT-VALUE}")
    long staggerMs;
    @Mixin
    SnapshotModelOptions model = new SnapshotModelOptions(20, 4, 10, 100, 1000);
    @Option(names = "--write-period-ms", defaultValue = "3000", description = "the writer's period. Default: ${DEFAULT-VALUE}")
    long writePeriodMs;
    @Option(names = "--write-folders", defaultValue = "2", description = "folders appended to per write. Default: ${DEFAULT-VALUE}")
    int writeFolders;
    @Option(names = "--warmup-seconds", defaultValue = "15", description = "hit ratio counted after this. Default: ${DEFAULT-VALUE}")
    long warmupSeconds;
    @Option(names = "--quiet-seconds", defaultValue = "20",
            description = "the writer stops this long before the last job starts, so every write can be seen. Default: ${DEFAULT-VALUE}")
    long quietSeconds;
    @Option(names = "--timeout-seconds", defaultValue = "30", description = "time-out of one request. Default: ${DEFAULT-VALUE}")
    long timeoutSeconds;

    @Override
    public Integer call() throws Exception {
        SnapshotModel m = model.model();
        if (jobs < 1 || jobs > 100_000 || staggerMs < 1 || m.folders() < 1 || m.largeFolders() < 0
                || m.largeFolders() > m.folders() || m.largeChannels() < 1 || m.smallChannels() < 1
                || m.payloadChars() < 1 || m.payloadChars() > 4000 || writePeriodMs < 100
                || writeFolders < 0 || timeoutSeconds < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "bad snapshot run parameters: positive counts,"
                    + " --large-folders <= --folders, --payload-chars <= 4000, --write-period-ms >= 100");
        }
        SnapshotRun.Params p = new SnapshotRun.Params(m, jobs, Duration.ofMillis(staggerMs),
                Duration.ofMillis(writePeriodMs), writeFolders, Duration.ofSeconds(warmupSeconds),
                Duration.ofSeconds(quietSeconds), Duration.ofSeconds(timeoutSeconds));
        try (Environment env = Environment.open(target.options())) {
            SnapshotRun.Result r = SnapshotRun.run(env, p);
            env.description().forEach((k, v) -> System.out.println(k + ": " + v));
            System.out.print(SnapshotRun.report(r, target.out));
        }
        return 0;
    }
}
