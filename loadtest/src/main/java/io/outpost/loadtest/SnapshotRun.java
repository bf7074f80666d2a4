package io.outpost.loadtest;

import io.outpost.client.ClientConfig;
import io.outpost.client.ClientEvent;
import io.outpost.client.Iov;
import io.outpost.client.OutpostClient;
import io.outpost.client.Snapshot;
import io.outpost.client.SnapshotSession;
import io.outpost.server.pin.GenerationToken;
import io.outpost.store.IovStore;
import io.outpost.store.model.Node;
import io.outpost.store.model.PayloadSpec;
import io.outpost.store.model.KeyType;
import io.outpost.store.model.Versioning;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The ATLAS prompt model through snapshot sessions and a real Squid while a writer appends IOVs: jobs start
 * {@code stagger} apart, each reads one snapshot of the HEAD of /SNAP through its own client (its own in-process
 * cache) via Squid; every {@code writePeriod} the writer appends an IOV to {@code writeFolders} folders. Measured:
 * requests, bytes and wall time per job; the share of pinned requests Squid answered after the warm-up; the
 * service's database loads; the staleness of every write (commit → completion of the first job that read the
 * folder at that generation or later); and every job's rows against the model at the generations its snapshot names.
 */
public final class SnapshotRun {
    /** Run parameters; bounded in count and time. */
    public record Params(SnapshotModel model, int jobs, Duration stagger, Duration writePeriod, int writeFolders,
                         Duration warmup, Duration quiet, Duration timeout) {
    }

    /** One job's figures. */
    public record Job(int index, long startMillis, double wallMillis, int requests, int pinnedRequests, long bytes,
                      String state, int mismatches, String error) {
    }

    /** One write: folder, its generation after the write, when it committed and when a job first saw it. */
    public record Write(int folder, GenerationToken token, long committedNanos, long seenNanos) {
        double stalenessSeconds() {
            return seenNanos < 0 ? -1 : (seenNanos - committedNanos) / 1e9;
        }
    }

    /** What the run measured. */
    public record Result(Params params, List<Job> jobs, List<Write> writes, long databaseLoads, long pinnedSent,
                         long pinnedAtService, double hitRatioAfterWarmup, long snapshotRequestsAtService,
                         double seconds) {
    }

    private SnapshotRun() {
    }

    /** Creates /SNAP's folders with the model's initial IOVs, unless they are there. */
    public static void populate(IovStore store, SnapshotModel m) {
        for (int f = 0; f < m.folders(); f++) {
            Node n;
            try {
                n = store.folder(m.folder(f));
                continue;
            } catch (io.outpost.store.StoreException absent) {
                n = store.createFolder(m.folder(f), Versioning.SINGLE_VERSION, KeyType.TIME,
                        PayloadSpec.parse("s:String4k"), "snapshot load model", true);
            }
            for (int k = 0; k < SnapshotModel.IOVS; k++) {
                store.store(n, m.iovs(f, k, k == SnapshotModel.IOVS - 1));
            }
        }
    }

    public static Result run(Environment env, Params p) throws IOException, InterruptedException {
        SnapshotModel m = p.model();
        IovStore store = env.store();
        populate(store, m);
        String outpost = env.outpostUrl();
        String proxy = "http://127.0.0.1:" + env.squid().address().getPort();
        ServiceMetrics metrics = new ServiceMetrics(outpost);
        // Tokens of every write per folder, in order; a folder's initial generation is older than all of them.
        Map<Integer, List<Write>> writes = new ConcurrentHashMap<>();
        for (int f = 0; f < m.folders(); f++) {
            writes.put(f, new CopyOnWriteArrayList<>());
        }
        List<Job> jobs = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger appends = new AtomicInteger();
        long loads0 = metrics.databaseLoads();
        long start = System.nanoTime();
        long warmupEnd = start + p.warmup().toNanos();
        long jobsEnd = start + p.stagger().toNanos() * p.jobs();
        long writesEnd = jobsEnd - p.quiet().toNanos();
        AtomicLong pinnedAtWarmup = new AtomicLong(-1);
        AtomicLong pinnedSentAfterWarmup = new AtomicLong();
        AtomicLong pinnedSent = new AtomicLong();
        ScheduledExecutorService scheduler = Executors.newScheduledThreadPool(2);
        ExecutorService workers = Executors.newVirtualThreadPerTaskExecutor();
        try {
            scheduler.scheduleAtFixedRate(() -> {
                if (System.nanoTime() > writesEnd) {
                    return;
                }
                for (int i = 0; i < p.writeFolders(); i++) {
                    int f = Math.floorMod(appends.getAndIncrement(), m.folders());
                    List<Write> done = writes.get(f);
                    Node n = store.folder(m.folder(f));
                    store.store(n, m.iovs(f, SnapshotModel.IOVS + done.size(), true));
                    long committed = System.nanoTime();
                    synchronized (done) {
                        done.add(new Write(f, GenerationToken.ofStamp(store.modificationStamp(n)), committed, -1));
                    }
                }
            }, p.writePeriod().toMillis(), p.writePeriod().toMillis(), TimeUnit.MILLISECONDS);
            scheduler.schedule(() -> pinnedAtWarmup.set(metrics.counter("outpost_pinned_reads_total")),
                    p.warmup().toMillis(), TimeUnit.MILLISECONDS);
            List<java.util.concurrent.Future<?>> all = new ArrayList<>();
            for (int j = 0; j < p.jobs(); j++) {
                int index = j;
                long due = start + p.stagger().toNanos() * j;
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(wait);
                }
                boolean afterWarmup = System.nanoTime() > warmupEnd;
                all.add(workers.submit(() -> jobs.add(job(index, m, outpost, proxy, p.timeout(), writes, start,
                        afterWarmup ? pinnedSentAfterWarmup : new AtomicLong(), pinnedSent))));
            }
            for (var f : all) {
                try {
                    f.get(p.timeout().toMillis() * 3, TimeUnit.MILLISECONDS);
                } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                    jobs.add(new Job(-1, 0, 0, 0, 0, 0, "", 0, String.valueOf(e)));
                }
            }
        } finally {
            scheduler.shutdownNow();
            workers.shutdownNow();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        long pinnedAtService = metrics.counter("outpost_pinned_reads_total");
        long snapshotsAtService = metrics.counter("outpost_snapshot_requests_total");
        long afterWarmupAtService = pinnedAtService - Math.max(0, pinnedAtWarmup.get());
        double hit = pinnedSentAfterWarmup.get() == 0 ? Double.NaN
                : 1.0 - (double) afterWarmupAtService / pinnedSentAfterWarmup.get();
        List<Write> allWrites = new ArrayList<>();
        writes.values().forEach(allWrites::addAll);
        allWrites.sort(java.util.Comparator.comparingLong(Write::committedNanos));
        List<Job> sorted = new ArrayList<>(jobs);
        sorted.sort(java.util.Comparator.comparingInt(Job::index));
        metrics.close();
        return new Result(p, sorted, List.copyOf(allWrites), metrics == null ? -1 : loadsDelta(env, loads0),
                pinnedSent.get(), pinnedAtService, hit, snapshotsAtService, seconds);
    }

    private static long loadsDelta(Environment env, long before) {
        Long now = env.serviceDatabaseLoads();
        return now == null || before < 0 ? -1 : now - before;
    }

    /** One job: a fresh client (own in-process cache) through Squid, one snapshot, every row checked. */
    private static Job job(int index, SnapshotModel m, String outpost, String proxy, Duration timeout,
                           Map<Integer, List<Write>> writes, long runStart, AtomicLong pinnedAfterWarmup,
                           AtomicLong pinnedSent) {
        long t0 = System.nanoTime();
        AtomicInteger requests = new AtomicInteger();
        AtomicInteger pinned = new AtomicInteger();
        ClientConfig cfg = ClientConfig.builder().server(outpost).proxy(proxy).readTimeout(timeout).retries(1).build();
        try (OutpostClient client = OutpostClient.builder(cfg).eventListener(e -> {
            if (e instanceof ClientEvent.AttemptSucceeded s) {
                requests.incrementAndGet();
                if (s.path().contains("/pin/") && !s.path().contains("/snapshot/")) {
                    pinned.incrementAndGet();
                }
            }
        }).build()) {
            SnapshotSession session = client.snapshotSession("HEAD", "/SNAP");
            Snapshot snap = session.at(m.jobKey(index));
            long done = System.nanoTime();
            int mismatches = check(m, snap, writes, done);
            pinnedAfterWarmup.addAndGet(pinned.get());
            pinnedSent.addAndGet(pinned.get());
            return new Job(index, (t0 - runStart) / 1_000_000, (done - t0) / 1e6, requests.get(), pinned.get(),
                    snap.bytes(), snap.state(), mismatches, null);
        } catch (Exception e) {
            return new Job(index, (t0 - runStart) / 1_000_000, (System.nanoTime() - t0) / 1e6, requests.get(),
                    pinned.get(), 0, "", 0, String.valueOf(e));
        }
    }

    /**
     * Compares every row of the snapshot with the model at the generation the snapshot names for its folder, and
     * marks the writes this job is the first to see. Returns the number of folders whose rows differ.
     */
    private static int check(SnapshotModel m, Snapshot snap, Map<Integer, List<Write>> writes, long doneNanos) {
        int mismatches = 0;
        for (int f = 0; f < m.folders(); f++) {
            Snapshot.FolderSnapshot part = snap.folders().get(m.folder(f));
            if (part == null) {
                mismatches++;
                continue;
            }
            GenerationToken g = GenerationToken.parse(part.generation());
            List<Write> ws = writes.get(f);
            boolean appended = false;
            synchronized (ws) {
              for (int i = 0; i < ws.size(); i++) {
                Write w = ws.get(i);
                if (w.token().compareTo(g) <= 0) {
                    appended = true;
                    if (w.seenNanos() < 0) {
                        ws.set(i, new Write(w.folder(), w.token(), w.committedNanos(), doneNanos));
                    }
                }
              }
            }
            List<Iov> rows = part.iovs();
            boolean ok = rows.size() == m.channels(f);
            for (int c = 0; ok && c < rows.size(); c++) {
                Iov iov = rows.get(c);
                ok = iov.channel() == c && iov.since() == m.since(c, SnapshotModel.IOVS - 1)
                        && iov.until() == m.untilAtJobKey(c, appended)
                        && m.payload(f, c, SnapshotModel.IOVS - 1).equals(iov.payload().get(0));
            }
            if (!ok) {
                mismatches++;
            }
        }
        return mismatches;
    }

    /** The report: per-job lines in jobs.csv, the summary and the targets printed and returned. */
    public static String report(Result r, Path out) throws IOException {
        Files.createDirectories(out);
        StringBuilder csv = new StringBuilder("job,start_ms,wall_ms,requests,pinned_requests,bytes,state,mismatches,error\n");
        for (Job j : r.jobs()) {
            csv.append(String.format(Locale.ROOT, "%d,%d,%.1f,%d,%d,%d,%s,%d,%s%n", j.index(), j.startMillis(),
                    j.wallMillis(), j.requests(), j.pinnedRequests(), j.bytes(), j.state(), j.mismatches(),
                    j.error() == null ? "" : "\"" + j.error().replace("\"", "'") + "\""));
        }
        Files.writeString(out.resolve("snapshot-jobs.csv"), csv);
        SnapshotModel m = r.params().model();
        List<Job> ok = r.jobs().stream().filter(j -> j.error() == null).toList();
        long failed = r.jobs().size() - ok.size();
        int maxRequests = ok.stream().mapToInt(Job::requests).max().orElse(0);
        double meanRequests = ok.stream().mapToInt(Job::requests).average().orElse(0);
        double meanBytes = ok.stream().mapToLong(Job::bytes).average().orElse(0);
        double[] walls = ok.stream().mapToDouble(Job::wallMillis).sorted().toArray();
        long mismatches = ok.stream().mapToLong(Job::mismatches).sum();
        List<Write> seen = r.writes().stream().filter(w -> w.seenNanos() >= 0).toList();
        double[] stale = seen.stream().mapToDouble(Write::stalenessSeconds).sorted().toArray();
        StringBuilder s = new StringBuilder();
        s.append(String.format(Locale.ROOT, "snapshot run: %d jobs (%d failed) in %.1f s, %d folders (%d large: %d "
                        + "channels; %d small: %d channels) x %d IOVs of %d characters%n", r.jobs().size(), failed,
                r.seconds(), m.folders(), m.largeFolders(), m.largeChannels(), m.folders() - m.largeFolders(),
                m.smallChannels(), SnapshotModel.IOVS, m.payloadChars()));
        s.append(String.format(Locale.ROOT, "per job: requests mean %.2f max %d; bytes mean %.0f; wall ms p50 %.1f "
                        + "p99 %.1f max %.1f%n", meanRequests, maxRequests, meanBytes, pct(walls, 50), pct(walls, 99),
                walls.length == 0 ? 0 : walls[walls.length - 1]));
        s.append(String.format(Locale.ROOT, "pinned requests: %d sent by jobs, %d reached the service; Squid hit "
                        + "ratio after the %d s warm-up %.2f %%%n", r.pinnedSent(), r.pinnedAtService(),
                r.params().warmup().toSeconds(), 100 * r.hitRatioAfterWarmup()));
        s.append(String.format(Locale.ROOT, "service: %d snapshot requests, %d database loads%n",
                r.snapshotRequestsAtService(), r.databaseLoads()));
        s.append(String.format(Locale.ROOT, "writes: %d, seen by a later job %d; staleness s p50 %.1f max %.1f%n",
                r.writes().size(), seen.size(), pct(stale, 50), stale.length == 0 ? 0 : stale[stale.length - 1]));
        s.append(String.format(Locale.ROOT, "rows checked against the model at each job's generations: %d "
                + "mismatching folders%n", mismatches));
        long bound = 1 + m.largeFolders();
        double staleBound = 15;
        s.append(String.format(Locale.ROOT, "target requests/job <= 1 + large folders (%d): max %d -> %s%n", bound,
                maxRequests, maxRequests <= bound ? "PASS" : "FAIL"));
        s.append(String.format(Locale.ROOT, "target pinned hit ratio >= 99 %% after warm-up: %.2f %% -> %s%n",
                100 * r.hitRatioAfterWarmup(), r.hitRatioAfterWarmup() >= 0.99 ? "PASS" : "FAIL"));
        double maxStale = stale.length == 0 ? Double.NaN : stale[stale.length - 1];
        s.append(String.format(Locale.ROOT, "target staleness <= state max-age + poll interval (10 + 5 s): max %.1f s "
                + "-> %s%n", maxStale, maxStale <= staleBound ? "PASS" : "FAIL"));
        s.append(String.format(Locale.ROOT, "target zero mismatches, zero failed jobs: %d, %d -> %s%n", mismatches,
                failed, mismatches == 0 && failed == 0 ? "PASS" : "FAIL"));
        Files.writeString(out.resolve("snapshot-summary.txt"), s);
        return s.toString();
    }

    private static double pct(double[] sorted, double p) {
        if (sorted.length == 0) {
            return 0;
        }
        int i = (int) Math.ceil(p / 100 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
    }
}
