package io.outpost.loadtest.grid;

import io.outpost.loadtest.SnapshotModel;
import io.outpost.loadtest.SnapshotRun;
import io.outpost.server.pin.GenerationToken;
import io.outpost.store.IovStore;
import io.outpost.store.db.DatabaseConfig;
import io.outpost.store.model.Node;
import io.outpost.testkit.SquidProcess;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The grid's scenario, run inside the writer host (so that it reaches every other host): PostgreSQL primary and
 * replica, two origins reading the replica, a regional Squid in front of them and two site Squids below it; client
 * hosts running jobs; the writer appending IOVs; the faults of the plan, each at its phase's start (and undone at
 * its end); then the report ({@link GridReport}).
 */
@Command(name = "grid-drive", hidden = true, description = "The grid's scenario (started by 'grid' inside the grid).")
public final class GridDriver implements Callable<Integer> {
    static final int OUTPOST_PORT = 8000;
    static final int SQUID_PORT = 3128;

    @Option(names = "--id", required = true)
    String id;
    @Option(names = "--hosts", required = true, split = ",")
    List<String> hostNames;
    @Mixin
    GridPlan plan;

    private GridNetwork net;
    private GridPostgres db;
    private final Map<String, Process> processes = new ConcurrentHashMap<>();
    private final List<GridReport.Write> writes = new CopyOnWriteArrayList<>();
    private final List<GridReport.Sample> originSamples = new CopyOnWriteArrayList<>();
    private final List<String> faultLog = new CopyOnWriteArrayList<>();
    /** The background restart of an origin after its fault (null before). */
    private volatile Thread originRestart;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private Path logs;

    @Override
    public Integer call() throws Exception {
        logs = plan.out.resolve("logs");
        Files.createDirectories(logs);
        net = GridNetwork.attach(id, hostNames);
        SnapshotModel m = plan.model();
        try (GridNetwork n = net) {
            try (GridPostgres pg = new GridPostgres(net, host("db1"), host("db2"), logs);
                 IovStore store = IovStore.open(DatabaseConfig.of(pg.primaryUrl(), "postgres", ""))) {
                db = pg;
                SnapshotRun.populate(store, m);
                for (String o : List.of("origin1", "origin2")) {
                    startOrigin(o);
                }
                for (String o : List.of("origin1", "origin2")) {
                    if (!awaitOrigin(health(o), processes.get(o), 180)) {
                        throw new IllegalStateException(o + " exited at its first start (see " + logs + ")");
                    }
                }
                startSquid("regional");
                startSquid("site1");
                startSquid("site2");
                for (String s : List.of("regional", "site1", "site2")) {
                    awaitPort(host(s).address(), SQUID_PORT, 60);
                }
                warmUp();
                return scenario(store, m);
            }
        }
    }

    /**
     * One request through each site Squid (the node list, never a job's URL) until it answers: a Squid starts
     * with its parent unknown, and its first forward may fail; the herd must meet a hierarchy that is up.
     */
    private void warmUp() throws InterruptedException {
        String url = "http://" + host("origin1").address() + ":" + OUTPOST_PORT + "/v1/json/nodes";
        for (String site : List.of("site1", "site2")) {
            HttpClient viaSite = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2))
                    .proxy(java.net.ProxySelector.of(new InetSocketAddress(host(site).address(), SQUID_PORT))).build();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (true) {
                try {
                    if (viaSite.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build(),
                            HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                        break;
                    }
                } catch (IOException e) {
                    // not through yet
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(site + " did not pass a request on within 60 s");
                }
                TimeUnit.MILLISECONDS.sleep(300); // polling processes we do not own the event loop of
            }
        }
    }

    private GridNetwork.Host host(String name) {
        GridNetwork.Host h = net.get(name);
        if (h == null) {
            throw new IllegalStateException("no grid host " + name);
        }
        return h;
    }

    private int scenario(IovStore store, SnapshotModel m) throws Exception {
        long herdAt = System.currentTimeMillis() + plan.leadSeconds * 1000L;
        List<GridReport.Phase> phases = GridReport.phases(plan, herdAt);
        long end = phases.get(phases.size() - 1).endMillis();
        String clientConfig = "(serverurl=http://" + host("origin1").address() + ":" + OUTPOST_PORT + ")"
                + "(serverurl=http://" + host("origin2").address() + ":" + OUTPOST_PORT + ")"
                + "(proxyurl=http://" + host("site1").address() + ":" + SQUID_PORT + ")"
                + "(proxyurl=http://" + host("site2").address() + ":" + SQUID_PORT + ")(retries=10)(backoff=0.5)";
        List<Process> clients = new ArrayList<>();
        java.util.Optional<Path> cppCli = GridCppJob.find();
        String cppNote = plan.cppHosts <= 0 ? "C++ client jobs: none asked for (--cpp-hosts 0)"
                : cppCli.isEmpty() ? "C++ client jobs: none, the C++ client is not built (" + GridCppJob.BUILT_CLI
                        + " not found from the working directory); its hosts ran Java jobs"
                : "C++ client jobs: on the last " + Math.min(plan.cppHosts, plan.clientHosts) + " client host(s)";
        for (int c = 1; c <= plan.clientHosts; c++) {
            String name = "client" + c;
            List<String> args = new ArrayList<>(List.of("grid-jobs", "--host", name, "--client-config", clientConfig,
                    "--herd", Integer.toString(plan.herdJobs / plan.clientHosts), "--herd-at", Long.toString(herdAt),
                    "--stagger-ms", Long.toString(plan.staggerMs), "--end-at", Long.toString(end - 1000L * plan.quietSeconds),
                    "--timeout-seconds", "10", "--cool-every", Integer.toString(plan.coolEvery)));
            args.addAll(plan.modelArgs());
            if (cppCli.isPresent() && c > plan.clientHosts - plan.cppHosts) {
                args.addAll(List.of("--cpp-cli", cppCli.get().toString()));
            }
            clients.add(net.start(host(name), GridJava.command("256m", plan.out.resolve("tmp/" + name), args),
                    logs.resolve(name + ".out")));
        }
        ScheduledExecutorService timer = Executors.newScheduledThreadPool(3);
        try {
            timer.scheduleAtFixedRate(() -> write(store, m, end), plan.writePeriodMs, plan.writePeriodMs,
                    TimeUnit.MILLISECONDS);
            timer.scheduleAtFixedRate(this::sampleOrigins, 0, 1, TimeUnit.SECONDS);
            for (GridReport.Phase p : phases) {
                sleepUntil(p.startMillis());
                fault(p.fault(), true);
                sleepUntil(p.endMillis());
                fault(p.fault(), false);
            }
            awaitOriginRestart();
            for (Process c : clients) {
                if (!c.waitFor(60, TimeUnit.SECONDS)) {
                    faultLog.add("a client host did not finish in time");
                }
            }
        } finally {
            timer.shutdownNow();
            timer.awaitTermination(10, TimeUnit.SECONDS);
        }
        sampleOrigins();
        List<GridReport.JobLine> jobs = new ArrayList<>();
        for (int c = 1; c <= plan.clientHosts; c++) {
            for (String line : Files.readAllLines(logs.resolve("client" + c + ".out"))) {
                if (line.startsWith("JOB ")) {
                    jobs.add(GridReport.JobLine.parse(line));
                }
            }
        }
        // the writes and the origins' samples beside the jobs' lines, so that a run's figures can be looked into after it
        Files.write(logs.resolve("writes.txt"), writes.stream().map(w -> w.folder() + " " + w.token() + " "
                + w.committedMillis()).toList());
        Files.write(logs.resolve("samples.txt"), originSamples.stream().map(x -> x.origin() + " " + x.millis() + " "
                + x.requests() + " " + x.loads()).toList());
        GridReport report = new GridReport(plan, phases, jobs, List.copyOf(writes), List.copyOf(originSamples),
                List.copyOf(faultLog), GridLogs.herdForwards(plan.out, phases.get(0), jobs), cppNote,
                GridLogs.clientRefusals(logs));
        String summary = report.write(plan.out);
        System.out.print(summary);
        return report.passed() ? 0 : 1;
    }

    private static void sleepUntil(long epochMillis) throws InterruptedException {
        long wait = epochMillis - System.currentTimeMillis();
        if (wait > 0) {
            TimeUnit.MILLISECONDS.sleep(wait); // the plan's clock: faults start at known times
        }
    }

    /** Applies ({@code on}) or undoes a fault; what was done goes to the report. */
    private void fault(GridReport.Fault f, boolean on) {
        try {
            String did = switch (f) {
                case NONE -> null;
                case KILL_ORIGIN -> on ? kill("origin1") : restartOriginMeanwhile("origin1");
                case REPLICA -> {
                    if (on) {
                        db.pauseReplay();
                        sleepUntil(System.currentTimeMillis() + plan.phaseSeconds * 500L);
                        db.killReplica();
                        yield "replica: replay paused, then killed half a phase later";
                    }
                    db.restartReplica();
                    yield "replica restarted (replays from its slot)";
                }
                case KILL_SITE_SQUID -> on ? kill("site1") : startSquid("site1");
                case PARTITION -> {
                    if (on) {
                        net.partition(host("regional"), host("origin1"));
                        net.partition(host("regional"), host("origin2"));
                        yield "regional Squid cut off from both origins";
                    }
                    net.heal(host("regional"));
                    yield "partition healed";
                }
                case DEGRADE_SITE_LINK -> {
                    if (on) {
                        yield "site1 link: " + net.degrade(host("site1"), 200, 1);
                    }
                    net.heal(host("site1"));
                    yield "site1 link healed";
                }
                case RESTART_ALL -> {
                    if (!on) {
                        yield null;
                    }
                    // rolling, as an operator restarts a service: each part once the one before is back
                    awaitOriginRestart();
                    db.killReplica();
                    db.restartReplica();
                    for (String o : List.of("origin1", "origin2")) {
                        kill(o);
                        restartOrigin(o);
                    }
                    for (String q : List.of("regional", "site1", "site2")) {
                        kill(q);
                        startSquid(q);
                        awaitPort(host(q).address(), SQUID_PORT, 60);
                    }
                    yield "replica, both origins and all three Squids restarted one after the other";
                }
            };
            if (did != null) {
                faultLog.add(System.currentTimeMillis() + " " + f + ": " + did);
            }
        } catch (Exception e) {
            faultLog.add(System.currentTimeMillis() + " " + f + " failed: " + e);
        }
    }

    private String kill(String name) throws InterruptedException {
        Process p = processes.remove(name);
        if (p != null) {
            p.destroyForcibly();
            p.waitFor(30, TimeUnit.SECONDS);
        }
        return name + " killed";
    }

    /** MaxRequestsPerClient of the origins' Frontier context: a client host runs the jobs of many worker nodes. */
    static final int COOL_REQUESTS_PER_HOST = 64;

    private String startOrigin(String name) {
        GridNetwork.Host h = host(name);
        List<String> args = List.of("grid-origin", "--server.address=" + h.address(), "--server.port=" + OUTPOST_PORT,
                "--outpost.database.url=" + db.primaryUrl(), "--outpost.database.user=postgres",
                "--outpost.read-replica.url=" + db.replicaUrl(), "--outpost.demo-data=false",
                "--outpost.database.statement-timeout=5s", "--outpost.database.connection-timeout=3s",
                "--logging.level.outpost.access=warn", "--spring.main.banner-mode=off",
                // the driver reads the origins' meters from the grid's own range; a client host stands for many
                // worker nodes, so the per-address connection limit does not apply to the grid's hosts
                "--outpost.management.addresses=198.18.0.0/24", "--outpost.http.unlimited-addresses=198.18.0.0/24",
                // as a site lists its Squids (docs/operations.md): the per-client limits then count the jobs behind
                // them, not the Squid
                "--outpost.trusted-proxies=" + host("regional").address() + "," + host("site1").address() + ","
                        + host("site2").address(),
                // a client host's COOL jobs stand for many worker nodes' (8 per node): on a loaded machine they ran
                // more than 8 Frontier requests at once and were refused as one client
                "--outpost.frontier.contexts.Outpost.settings[MaxRequestsPerClient]=" + COOL_REQUESTS_PER_HOST,
                "--server.tomcat.basedir=" + plan.out.resolve("tmp/" + name + "/tomcat").toAbsolutePath());
        processes.put(name, net.start(h, GridJava.command("256m", plan.out.resolve("tmp/" + name), args),
                logs.resolve(name + ".log")));
        return name + " started";
    }

    /**
     * Starts an origin again in the background ({@link #restartOrigin}), so that the next phases keep their times;
     * the report gets a line when it answers.
     */
    private String restartOriginMeanwhile(String name) {
        originRestart = Thread.ofVirtual().name("grid-restart-" + name).start(() -> {
            try {
                String did = restartOrigin(name);
                faultLog.add(System.currentTimeMillis() + " " + GridReport.Fault.KILL_ORIGIN + ": " + did);
            } catch (Exception e) {
                faultLog.add(System.currentTimeMillis() + " " + GridReport.Fault.KILL_ORIGIN + " failed: " + e);
            }
        });
        return name + " starting again";
    }

    private void awaitOriginRestart() throws InterruptedException {
        Thread t = originRestart;
        if (t != null && !t.join(Duration.ofSeconds(600))) {
            faultLog.add(System.currentTimeMillis() + " an origin's restart did not end within 10 minutes");
        }
    }

    /**
     * Starts an origin again and waits until it answers, as an operator would: an origin cannot start while its
     * replica is down (it exits), so a start that ends is tried again every few seconds for up to five minutes.
     * Without the wait a failed start went unnoticed and the origin stayed down through the following faults.
     */
    private String restartOrigin(String name) throws InterruptedException {
        long t0 = System.nanoTime();
        long deadline = t0 + TimeUnit.MINUTES.toNanos(5);
        for (int attempt = 1; System.nanoTime() < deadline; attempt++) {
            startOrigin(name);
            if (awaitOrigin(health(name), processes.get(name), 180)) {
                return String.format(Locale.ROOT, "%s started, answering after %.1f s%s", name,
                        (System.nanoTime() - t0) / 1e9, attempt > 1 ? " (start " + attempt + "; the ones before exited)" : "");
            }
            TimeUnit.SECONDS.sleep(3); // an operator's pause before starting it again
        }
        throw new IllegalStateException(name + " did not start within five minutes (see " + logs + ")");
    }

    private String health(String origin) {
        return "http://" + host(origin).address() + ":" + OUTPOST_PORT + "/actuator/health";
    }

    /** Polls the origin's health until it answers (true) or its process ends (false). */
    private boolean awaitOrigin(String url, Process p, int seconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (p.isAlive()) {
            try {
                HttpResponse<Void> r = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(2))
                        .build(), HttpResponse.BodyHandlers.discarding());
                if (r.statusCode() == 200) {
                    return true;
                }
            } catch (IOException e) {
                // not up yet
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(url + " did not answer within " + seconds + " s (see " + logs + ")");
            }
            TimeUnit.MILLISECONDS.sleep(300); // polling a process we do not own the event loop of
        }
        return false;
    }

    private String startSquid(String name) throws IOException {
        GridNetwork.Host h = host(name);
        Path script = SquidProcess.findScript().orElseThrow(() ->
                new IllegalStateException("squid-config/run-squid.sh not found from the working directory"));
        Path dir = plan.out.resolve("squid-" + name);
        List<String> cmd = new ArrayList<>(List.of("bash", script.toString(), "run", "--dir", dir.toString(),
                "--listen", h.address(), "--port", Integer.toString(SQUID_PORT), "--name", name,
                "--site-nets", "198.18.0.0/24", "--cache-mem", "64", "--cache-disk", "100"));
        for (String o : List.of("origin1", "origin2")) {
            cmd.addAll(List.of("--outpost", "http://" + host(o).address() + ":" + OUTPOST_PORT));
        }
        if (name.equals("regional")) {
            for (String o : List.of("origin1", "origin2")) {
                cmd.addAll(List.of("--origin", host(o).address() + ":" + OUTPOST_PORT));
            }
        } else {
            cmd.addAll(List.of("--parent-proxy", host("regional").address() + ":" + SQUID_PORT));
        }
        processes.put(name, net.start(h, cmd, logs.resolve(name + ".log")));
        return name + " started";
    }

    private void write(IovStore store, SnapshotModel m, long end) {
        if (System.currentTimeMillis() > end - 1000L * plan.quietSeconds) {
            return;
        }
        try {
            int f = writes.size() % m.folders();
            Node n = store.folder(m.folder(f));
            long appended = writes.stream().filter(w -> w.folder() == f).count();
            store.store(n, m.iovs(f, SnapshotModel.IOVS + (int) appended, true));
            long committed = System.currentTimeMillis();
            writes.add(new GridReport.Write(f, GenerationToken.ofStamp(store.modificationStamp(n)), committed));
        } catch (RuntimeException e) {
            faultLog.add(System.currentTimeMillis() + " write failed: " + e.getMessage());
        }
    }

    /**
     * The origins' request counters (snapshot and pinned reads) and their database loads (rows read from the
     * database for an answer, as {@code outpost-loadtest snapshot} counts them); -1 for an origin that does not answer.
     */
    private void sampleOrigins() {
        for (String o : List.of("origin1", "origin2")) {
            long v = -1;
            long loads = -1;
            long now = System.currentTimeMillis();
            try {
                // 10 s: on a machine at load 40 an origin's meters took longer than 2 s, and the herd went unsampled
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://" + host(o).address() + ":"
                        + OUTPOST_PORT + "/actuator/prometheus")).timeout(Duration.ofSeconds(10)).build(),
                        HttpResponse.BodyHandlers.ofString());
                now = System.currentTimeMillis(); // the counters were read by the time their answer arrived
                if (r.statusCode() == 200) {
                    v = Math.max(0, GridReport.sum(r.body(), "outpost_snapshot_requests_total"))
                            + Math.max(0, GridReport.sum(r.body(), "outpost_pinned_reads_total"));
                    loads = io.outpost.loadtest.ServiceMetrics.databaseLoads(r.body());
                }
            } catch (IOException e) {
                // down: the sample says so
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            originSamples.add(new GridReport.Sample(o, now, v, loads));
        }
    }

    private static void awaitPort(String address, int port, int seconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (true) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(address, port), 1000);
                return;
            } catch (IOException e) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(address + ":" + port + " did not accept within " + seconds + " s");
                }
            }
            TimeUnit.MILLISECONDS.sleep(200); // polling a process we do not own the event loop of
        }
    }
}
