package io.outpost.loadtest.grid;

import io.outpost.client.ClientConfig;
import io.outpost.client.ClientEvent;
import io.outpost.client.Iov;
import io.outpost.client.OutpostClient;
import io.outpost.client.Snapshot;
import io.outpost.loadtest.SnapshotModel;
import io.outpost.loadtest.SnapshotModelOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The jobs of one client host of the grid: first a herd (many jobs of one new run in the same second, all at the
 * run's first key), then one job every
 * {@code stagger} until {@code end}. Each job is a fresh Java client (its own in-process cache) configured with both
 * site Squids and both origins, reading one snapshot of /SNAP (the ATLAS snapshot model), and prints one line:
 * {@code JOB host index herd start-ms end-ms requests error folder=generation:variant,... paths}, where the variant
 * says whether the folder's rows equal the model before the writer's first append to it (0), after it (1) or
 * neither (x); the driver checks that against the generation the job read. Every {@code cool-every}-th job after
 * the herd is a COOL job instead ({@link GridCoolJob}: at-time reads through the Frontier endpoint, same routes);
 * Frontier answers carry no generation, so its folders print {@code f=nogen:variant}. The last field is the job's
 * kind: {@code java}, {@code cool} or {@code cpp} (a host given {@code --cpp-cli} runs its snapshot jobs after the
 * herd with the C++ client's tool, {@link GridCppJob}). A Java job's line ends with the time it asked for the
 * snapshot that named its state (the attempt that succeeded; -1 when none did), which staleness is measured at.
 */
@Command(name = "grid-jobs", hidden = true, description = "The jobs of one client host of the grid (started by 'grid').")
public final class GridJobs implements Callable<Integer> {
    @Option(names = "--host", required = true)
    String host;
    @Option(names = "--client-config", required = true, description = "Frontier-style client configuration")
    String config;
    @Option(names = "--herd", defaultValue = "0")
    int herd;
    @Option(names = "--herd-at", description = "epoch ms of the herd")
    long herdAt;
    @Option(names = "--stagger-ms", defaultValue = "500")
    long staggerMs;
    @Option(names = "--end-at", description = "epoch ms: no job starts after it")
    long endAt;
    @Option(names = "--timeout-seconds", defaultValue = "10")
    int timeoutSeconds;
    @Mixin
    SnapshotModelOptions model = new SnapshotModelOptions(8, 2, 5, 50, 100);
    @Option(names = "--cool-every", defaultValue = "2", description = "every n-th job after the herd reads as COOL; 0: none")
    int coolEvery;
    @Option(names = "--cpp-cli", description = "the C++ client's outpost-cli: this host's Java snapshot jobs after the "
            + "herd use it instead")
    Path cppCli;

    @Override
    public Integer call() throws Exception {
        SnapshotModel m = model.model();
        ClientConfig cfg = ClientConfig.parse(config).toBuilder().readTimeout(Duration.ofSeconds(timeoutSeconds))
                .build();
        ExecutorService workers = Executors.newVirtualThreadPerTaskExecutor();
        List<Future<?>> all = new ArrayList<>();
        AtomicInteger index = new AtomicInteger(Math.abs(host.hashCode() % 1000) * 100_000);
        GridCoolJob cool = new GridCoolJob(cfg, Duration.ofSeconds(timeoutSeconds));
        GridCppJob cpp = cppCli == null ? null : new GridCppJob(cppCli, config, timeoutSeconds);
        waitUntil(herdAt);
        for (int i = 0; i < herd; i++) {
            all.add(workers.submit(() -> job(m, cfg, index.getAndIncrement(), true)));
        }
        long next = Math.max(System.currentTimeMillis(), herdAt + 1000);
        for (int n = 1; next <= endAt; n++) {
            waitUntil(next);
            boolean asCool = coolEvery > 0 && n % coolEvery == 0;
            all.add(workers.submit(() -> {
                if (asCool) {
                    coolJob(m, cool, index.getAndIncrement());
                } else if (cpp != null) {
                    cppJob(m, cpp, index.getAndIncrement());
                } else {
                    job(m, cfg, index.getAndIncrement(), false);
                }
            }));
            next += staggerMs;
        }
        for (Future<?> f : all) {
            f.get(timeoutSeconds * 10L, TimeUnit.SECONDS);
        }
        workers.shutdown();
        System.out.flush();
        return 0;
    }

    private static void waitUntil(long epochMillis) throws InterruptedException {
        long wait = epochMillis - System.currentTimeMillis();
        if (wait > 0) {
            TimeUnit.MILLISECONDS.sleep(wait); // the schedule itself: jobs start at set times
        }
    }

    private void job(SnapshotModel m, ClientConfig cfg, int index, boolean inHerd) {
        long start = System.currentTimeMillis();
        AtomicInteger requests = new AtomicInteger();
        Set<String> paths = ConcurrentHashMap.newKeySet();
        // when the job asked for the snapshot that named its state (the attempt that succeeded): on a loaded machine
        // its answer may take seconds to arrive, the state being the origin's when it took the request up
        AtomicLong asked = new AtomicLong(-1);
        AtomicLong stateAt = new AtomicLong(-1);
        String error = "-";
        StringBuilder folderStates = new StringBuilder();
        try (OutpostClient client = OutpostClient.builder(cfg).eventListener(e -> {
            if (e instanceof ClientEvent.AttemptStarted s && s.path().contains("/snapshot/")) {
                asked.set(System.currentTimeMillis());
            }
            if (e instanceof ClientEvent.AttemptSucceeded s) {
                requests.incrementAndGet();
                paths.add(s.path());
                if (s.path().contains("/snapshot/")) {
                    stateAt.set(asked.get());
                }
            }
        }).build()) {
            // the herd: every job of a new run asks for the same run's conditions
            Snapshot snap = client.snapshotSession("HEAD", "/SNAP").at(m.jobKey(inHerd ? 0 : index));
            for (int f = 0; f < m.folders(); f++) {
                Snapshot.FolderSnapshot part = snap.folders().get(m.folder(f));
                String variant = part == null ? "x" : matches(m, f, part.iovs(), false) ? "0"
                        : matches(m, f, part.iovs(), true) ? "1" : "x";
                folderStates.append(folderStates.isEmpty() ? "" : ",").append(f).append('=')
                        .append(part == null ? "none" : part.generation()).append(':').append(variant);
            }
        } catch (Exception e) {
            error = String.valueOf(e.getMessage()).replaceAll("\\s+", "_");
        }
        long end = System.currentTimeMillis();
        String line = String.join(" ", "JOB", host, Integer.toString(index), inHerd ? "1" : "0", Long.toString(start),
                Long.toString(end), Integer.toString(requests.get()), error,
                folderStates.isEmpty() ? "-" : folderStates.toString(),
                inHerd && !paths.isEmpty() ? String.join("|", paths) : "-", GridReport.JAVA,
                Long.toString(stateAt.get()));
        print(line);
    }

    private void coolJob(SnapshotModel m, GridCoolJob cool, int index) {
        AtomicInteger requests = new AtomicInteger();
        noGenerationJob(index, GridReport.COOL, requests, () -> cool.read(m, m.jobKey(index), requests));
    }

    /** A C++ job's requests are its own (the tool's): counted as -1, unknown. */
    private void cppJob(SnapshotModel m, GridCppJob cpp, int index) {
        noGenerationJob(index, GridReport.CPP, new AtomicInteger(-1), () -> cpp.read(m, m.jobKey(index)));
    }

    private void noGenerationJob(int index, String kind, AtomicInteger requests,
                                 Callable<java.util.Map<Integer, String>> read) {
        long start = System.currentTimeMillis();
        String error = "-";
        StringBuilder folderStates = new StringBuilder();
        try {
            read.call().forEach((f, variant) -> folderStates
                    .append(folderStates.isEmpty() ? "" : ",").append(f).append('=').append(GridReport.NO_GENERATION).append(':').append(variant));
        } catch (Exception e) {
            error = String.valueOf(e.getMessage()).replaceAll("\\s+", "_");
        }
        print(String.join(" ", "JOB", host, Integer.toString(index), "0", Long.toString(start),
                Long.toString(System.currentTimeMillis()), Integer.toString(requests.get()), error,
                folderStates.isEmpty() ? "-" : folderStates.toString(), "-", kind));
    }

    private static void print(String line) {
        synchronized (System.out) {
            System.out.println(line);
        }
    }

    /** The rows valid at a job key: the last initial IOV of each channel, closed once the folder got an append. */
    private static boolean matches(SnapshotModel m, int f, List<Iov> rows, boolean appended) {
        if (rows.size() != m.channels(f)) {
            return false;
        }
        for (int c = 0; c < rows.size(); c++) {
            Iov iov = rows.get(c);
            if (iov.channel() != c || iov.since() != m.since(c, SnapshotModel.IOVS - 1)
                    || iov.until() != m.untilAtJobKey(c, appended)
                    || !m.payload(f, c, SnapshotModel.IOVS - 1).equals(iov.payload().get(0))) {
                return false;
            }
        }
        return true;
    }
}
