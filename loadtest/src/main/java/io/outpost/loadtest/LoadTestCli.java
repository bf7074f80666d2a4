package io.outpost.loadtest;

import io.outpost.store.workload.Workload;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * outpost-loadtest: populate a database with a seed workload, run workloads in the direct, proxied and cached
 * modes, and write the summary table, result.json and report.html. Loopback targets only.
 */
@Command(name = "outpost-loadtest", mixinStandardHelpOptions = true, version = "outpost-loadtest 0.1.0",
        description = "Direct vs proxied vs cached load tests of Outpost on the seed workloads (loopback only).",
        subcommands = {LoadTestCli.Populate.class, LoadTestCli.Run.class, LoadTestCli.Compare.class,
            SnapshotCommand.class, io.outpost.loadtest.grid.GridCommand.class, io.outpost.loadtest.grid.GridDriver.class,
            io.outpost.loadtest.grid.GridOrigin.class, io.outpost.loadtest.grid.GridJobs.class})
public final class LoadTestCli implements Callable<Integer> {

    public static void main(String[] args) {
        int rc = new CommandLine(new LoadTestCli()).execute(args);
        System.exit(rc);
    }

    @Override
    public Integer call() {
        new CommandLine(this).usage(System.out);
        return 2;
    }

    /** Where the data lives and where the service runs. */
    static final class Target {
        // Direct access means a database server, as in the seed studies (a remote Oracle): PostgreSQL by default.
        // SQLite is an in-process library, so its "direct" mode has no server or network at all.
        @Option(names = "--db", defaultValue = "postgres", description = "postgres (a PostgreSQL server started for the "
                + "run, from the embedded binaries) or sqlite (an in-process file under --out). Default: ${DEFAULT-VALUE}")
        String db;
        @Option(names = "--db-url", description = "use this existing database instead (loopback JDBC URL or SQLite file); "
                + "workloads already in it are not populated again")
        String dbUrl;
        @Option(names = "--db-user")
        String dbUser;
        @Option(names = "--db-password")
        String dbPassword;
        @Option(names = "--outpost-url", description = "a running Outpost on this machine (default: start one in-process)")
        String outpostUrl;
        @Option(names = "--out", defaultValue = "target/loadtest", description = "output directory. Default: ${DEFAULT-VALUE}")
        Path out;
        @Option(names = "--read-pool", defaultValue = "16", description = "JDBC read pool of the service and of the direct mode")
        int readPool;
        @Option(names = "--split-cores", negatable = true, defaultValue = "true", fallbackValue = "true",
                description = "give the PostgreSQL started for the run and Squid (never busy together) half of the CPUs "
                        + "and the generator and service the other half, as separate machines would (--no-split-cores: "
                        + "all share them). "
                        + "Default: ${DEFAULT-VALUE}")
        boolean splitCores;
        @Option(names = "--quiet", description = "no progress display")
        boolean quiet;

        Environment.Options options() {
            return new Environment.Options(db, dbUrl, dbUser, dbPassword, outpostUrl, out, readPool, !quiet, splitCores);
        }
    }

    /** Bounds and ATLAS model parameters shared by run and compare. */
    static final class Load {
        @Option(names = "--scale", defaultValue = "0.1", description = "scale factor of the workloads. Default: ${DEFAULT-VALUE}")
        double scale;
        @Option(names = "--clients", defaultValue = "1,4,16", split = ",",
                description = "concurrent clients, one step per value. Default: ${DEFAULT-VALUE}")
        List<Integer> clients;
        @Option(names = "--requests", defaultValue = "20000", description = "at most this many requests per step. Default: ${DEFAULT-VALUE}")
        long requests;
        @Option(names = "--step-seconds", defaultValue = "10", description = "at most this long per step. Default: ${DEFAULT-VALUE}")
        long stepSeconds;
        @Option(names = "--slices", defaultValue = "5",
                description = "each step runs as this many slices, the modes taking turns slice by slice. Default: ${DEFAULT-VALUE}")
        int slices;
        @Option(names = "--warmup-seconds", defaultValue = "10",
                description = "unmeasured warm-up of this long before each workload and mode (0: none). Default: ${DEFAULT-VALUE}")
        long warmupSeconds;
        @Option(names = "--timeout-seconds", defaultValue = "30", description = "time-out of one request. Default: ${DEFAULT-VALUE}")
        long timeoutSeconds;
        @Option(names = "--time-limit-seconds", defaultValue = "900",
                description = "no step starts after this long (the whole run is bounded). Default: ${DEFAULT-VALUE}")
        long timeLimitSeconds;
        @Option(names = "--atlas-jobs", defaultValue = "20", description = "ATLAS model: jobs. Default: ${DEFAULT-VALUE}")
        int atlasJobs;
        @Option(names = "--atlas-stagger-ms", defaultValue = "1000", description = "ATLAS model: start stagger. Default: ${DEFAULT-VALUE}")
        long atlasStaggerMs;
        @Option(names = "--atlas-period-ms", defaultValue = "5000", description = "ATLAS model: snapshot period. Default: ${DEFAULT-VALUE}")
        long atlasPeriodMs;
        @Option(names = "--atlas-snapshots", defaultValue = "2", description = "ATLAS model: snapshots per job. Default: ${DEFAULT-VALUE}")
        int atlasSnapshots;
        @Option(names = "--atlas-deadline-ms", defaultValue = "5000", description = "ATLAS model: deadline of a snapshot. Default: ${DEFAULT-VALUE}")
        long atlasDeadlineMs;
        @Option(names = "--atlas-scale", defaultValue = "0.01",
                description = "ATLAS model data: 100 x scale folders of 1000 channels x 60 IOVs of 1000 characters. Default: ${DEFAULT-VALUE}")
        double atlasScale;

        AtlasModel.Params atlas() {
            return new AtlasModel.Params(atlasJobs, Duration.ofMillis(atlasStaggerMs), Duration.ofMillis(atlasPeriodMs),
                    atlasSnapshots, Duration.ofMillis(atlasDeadlineMs), atlasScale);
        }

        /** {@code cli}: the command being run, whose error stream reports a bad value. */
        LoadRun.Plan plan(CommandLine cli, List<Workload> workloads, List<Mode> modes, List<Mode> atlasModes, boolean progress) {
            if (clients.stream().anyMatch(c -> c < 1 || c > 1000)) {
                throw new CommandLine.ParameterException(cli, "--clients must be between 1 and 1000");
            }
            if (requests < 1 || stepSeconds < 1 || timeoutSeconds < 1 || scale <= 0) {
                throw new CommandLine.ParameterException(cli, "--requests, --step-seconds, --timeout-seconds and --scale must be positive");
            }
            if (warmupSeconds < 0 || slices < 1 || slices > 100) {
                throw new CommandLine.ParameterException(cli, "--warmup-seconds must not be negative, --slices must be 1 to 100");
            }
            return new LoadRun.Plan(workloads, modes, clients, scale, requests, Duration.ofSeconds(stepSeconds), slices,
                    Duration.ofSeconds(warmupSeconds), Duration.ofSeconds(timeoutSeconds), atlasModes, atlas(), Duration.ofSeconds(timeLimitSeconds), progress);
        }
    }

    @Command(name = "populate", mixinStandardHelpOptions = true,
            description = "Create and fill a workload's folders with random payloads through the bulk loader.")
    static final class Populate implements Callable<Integer> {
        @Spec
        CommandSpec spec;
        @Mixin
        Target target;
        @Option(names = "--workload", required = true, split = ",", description = "workload label(s), e.g. smallQueries")
        List<String> workloads;
        @Option(names = "--scale", defaultValue = "0.1")
        double scale;

        @Override
        public Integer call() throws Exception {
            if (target.dbUrl == null && !"sqlite".equalsIgnoreCase(target.db)) {
                throw new CommandLine.ParameterException(spec.commandLine(), "populate needs --db-url (an existing "
                        + "database) or --db sqlite (a file under --out): the PostgreSQL started for a run is removed "
                        + "when the run ends");
            }
            try (Environment env = Environment.open(target.options())) {
                for (String w : workloads) {
                    env.populate(Workload.parse(w), scale);
                }
                env.description().forEach((k, v) -> System.out.println(k + ": " + v));
            }
            return 0;
        }
    }

    @Command(name = "run", mixinStandardHelpOptions = true,
            description = "Run workloads in one mode or all three; atlasPrompt runs the ATLAS prompt-reconstruction model.")
    static final class Run implements Callable<Integer> {
        @Spec
        CommandSpec spec;
        @Mixin
        Target target;
        @Mixin
        Load load;
        @Option(names = "--workload", required = true, split = ",",
                description = "likeLuis1iov, likeLuis1channel, smallQueries, coolBrowse, atlasPrompt (comma-separated)")
        List<String> workloads;
        @Option(names = "--mode", defaultValue = "all", split = ",", description = "direct, proxied, cached or all. Default: ${DEFAULT-VALUE}")
        List<String> modes;

        @Override
        public Integer call() throws Exception {
            List<Mode> ms = modes(modes);
            List<Workload> ws = new ArrayList<>();
            boolean atlas = false;
            for (String s : workloads) {
                Workload w = Workload.parse(s);
                if (w == Workload.ATLAS_PROMPT) {
                    atlas = true;
                } else if (WorkloadPlan.SUPPORTED.contains(w)) {
                    ws.add(w);
                } else {
                    throw new CommandLine.ParameterException(spec.commandLine(), "workload " + s + " is not run by the load generator");
                }
            }
            return execute(target, load.plan(spec.commandLine(), ws, ms, atlas ? ms : List.of(), !target.quiet), "run");
        }
    }

    @Command(name = "compare", mixinStandardHelpOptions = true,
            description = "The three-mode comparison on smallQueries and likeLuis1iov at small scale, plus the ATLAS model, "
                    + "with the report.")
    static final class Compare implements Callable<Integer> {
        @Spec
        CommandSpec spec;
        @Mixin
        Target target;
        @Mixin
        Load load;
        @Option(names = "--workload", defaultValue = "smallQueries,likeLuis1iov", split = ",")
        List<String> workloads;
        @Option(names = "--atlas-modes", defaultValue = "cached", split = ",",
                description = "modes of the ATLAS model run (none to skip). Default: ${DEFAULT-VALUE}")
        List<String> atlasModes;

        @Override
        public Integer call() throws Exception {
            List<Mode> atlas = atlasModes.equals(List.of("none")) ? List.of() : modes(atlasModes);
            return execute(target, load.plan(spec.commandLine(), workloads.stream().map(Workload::parse).toList(), List.of(Mode.values()),
                    atlas, !target.quiet), "compare");
        }
    }

    static List<Mode> modes(List<String> names) {
        if (names.stream().anyMatch(n -> n.equalsIgnoreCase("all"))) {
            return List.of(Mode.values());
        }
        return names.stream().map(Mode::parse).distinct().toList();
    }

    /**
     * Runs a plan and writes the outputs. Exit code 0 when every measured request got the answer it asked for,
     * whatever the targets say; 1 when any failed (the report lists them), since its ratios then mean nothing.
     */
    static int execute(Target target, LoadRun.Plan plan, String command) throws Exception {
        RunReport report;
        String cmd = "outpost-loadtest " + command + " " + String.join(" ", Arrays.asList(ProcessHandle.current().info()
                .arguments().map(a -> Arrays.copyOfRange(a, Math.max(0, indexOf(a, command) + 1), a.length)).orElse(new String[0])));
        try (Environment env = Environment.open(target.options())) {
            report = LoadRun.run(env, plan, cmd.trim());
        }
        System.out.println();
        System.out.print(ReportWriter.summary(report));
        Path json = ReportWriter.writeJson(report, target.out);
        Path html = ReportWriter.writeHtml(report, target.out);
        System.out.println("\nwrote " + json + " and " + html);
        long errors = Targets.errors(report.steps());
        if (errors > 0) {
            System.err.println("outpost-loadtest: " + errors + " measured requests failed (see the report); the run "
                    + "does not count");
            return 1;
        }
        return 0;
    }

    private static int indexOf(String[] a, String s) {
        for (int i = 0; i < a.length; i++) {
            if (a[i].equals(s)) {
                return i;
            }
        }
        return a.length - 1;
    }
}
