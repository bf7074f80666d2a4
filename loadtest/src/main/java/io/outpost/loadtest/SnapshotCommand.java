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
    @Option(names = "--folders", defaultValue = "20", description = "folders under /SNAP. Default: ${DEFAULT-VALUE}")
    int folders;
    @Option(names = "--large-folders", defaultValue = "4", description = "of which large (by URL). Default: ${DEFAULT-VALUE}")
    int largeFolders;
    @Option(names = "--large-channels", defaultValue = "100", description = "channels of a large folder. Default: ${DEFAULT-VALUE}")
    int largeChannels;
    @Option(names = "--small-channels", defaultValue = "10", description = "channels of a small folder. Default: ${DEFAULT-VALUE}")
    int smallChannels;
    @Option(names = "--payload-chars", defaultValue = "1000", description = "random characters per IOV. Default: ${DEFAULT-VALUE}")
    int payloadChars;
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
        if (jobs < 1 || jobs > 100_000 || staggerMs < 1 || folders < 1 || largeFolders < 0 || largeFolders > folders
                || largeChannels < 1 || smallChannels < 1 || payloadChars < 1 || payloadChars > 4000 || writePeriodMs < 100
                || writeFolders < 0 || timeoutSeconds < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "bad snapshot run parameters: positive counts,"
                    + " --large-folders <= --folders, --payload-chars <= 4000, --write-period-ms >= 100");
        }
        SnapshotModel model = new SnapshotModel(folders, largeFolders, smallChannels, largeChannels, payloadChars);
        SnapshotRun.Params p = new SnapshotRun.Params(model, jobs, Duration.ofMillis(staggerMs),
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
