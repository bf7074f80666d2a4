package io.outpost.loadtest.grid;

import io.outpost.server.pin.GenerationToken;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the grid run measured, per phase (one fault each): jobs started and failed, extra job time against the
 * baseline, requests that reached the origins, staleness of the writes committed (how long after a write's commit
 * a job could still be given a state without it, see {@link #stateLag}) and rows that differ from the data at the
 * generation each job read, and the verdict on each target. {@link GridReportWriter} writes it out.
 */
final class GridReport {
    enum Fault { NONE, KILL_ORIGIN, REPLICA, KILL_SITE_SQUID, PARTITION, DEGRADE_SITE_LINK, RESTART_ALL }

    record Phase(String name, Fault fault, long startMillis, long endMillis) {
    }

    record Write(int folder, GenerationToken token, long committedMillis) {
    }

    record Sample(String origin, long millis, long requests, long loads) {
    }

    /** The herd's distinct URLs, their requests from the regional Squid to the origins, the most per URL from a site. */
    record HerdForwards(int distinctUrls, long toOrigins, long maxPerUrlFromASite) {
    }

    /**
     * One job line of a client host (see {@link GridJobs}); {@code stateAt}: when a Java job asked for the snapshot
     * that named its state (the attempt that was answered), -1 when unknown.
     */
    record JobLine(String host, int index, boolean herd, long start, long end, int requests, String error,
                   Map<Integer, String> generations, Map<Integer, String> variants, List<String> paths, String kind,
                   long stateAt) {
        static JobLine parse(String line) {
            String[] p = line.split(" ");
            Map<Integer, String> gens = new HashMap<>();
            Map<Integer, String> variants = new HashMap<>();
            if (!p[8].equals("-")) {
                for (String part : p[8].split(",")) {
                    int eq = part.indexOf('=');
                    int colon = part.lastIndexOf(':');
                    int f = Integer.parseInt(part.substring(0, eq));
                    gens.put(f, part.substring(eq + 1, colon));
                    variants.put(f, part.substring(colon + 1));
                }
            }
            return new JobLine(p[1], Integer.parseInt(p[2]), p[3].equals("1"), Long.parseLong(p[4]),
                    Long.parseLong(p[5]), Integer.parseInt(p[6]), p[7].equals("-") ? null : p[7], gens, variants,
                    p.length > 9 && !p[9].equals("-") ? List.of(p[9].split("\\|")) : List.of(),
                    p.length > 10 ? p[10] : JAVA, p.length > 11 ? Long.parseLong(p[11]) : -1);
        }

        boolean failed() {
            return error != null;
        }

        /** A COOL job (at-time reads through Frontier). */
        boolean cool() {
            return kind.equals(COOL);
        }

        boolean cpp() {
            return kind.equals(CPP);
        }
    }

    /** Job kinds, the last field of a job line; COOL and C++ jobs print no generation (see {@link #NO_GENERATION}). */
    static final String JAVA = "java";
    static final String COOL = "cool";
    static final String CPP = "cpp";
    static final String NO_GENERATION = "nogen";

    /**
     * One phase's figures. Staleness of the phase's writes (seconds): {@code maxStalenessSeconds} of those judged
     * against the bound, {@code replicaWaitSeconds} of those that waited for the replica fault (-1: none did, see
     * {@link #waitsForReplica}), {@code maxFirstJobEndSeconds} to the end of the first job that read a judged one.
     */
    record PhaseResult(Phase phase, int jobs, int failed, int coolJobs, int coolFailed, int cppJobs, int cppFailed,
                       double meanMillis,
                       long originRequests, int writes, int writesSeen, double maxStalenessSeconds,
                       double replicaWaitSeconds, double maxFirstJobEndSeconds, int mismatches) {
    }

    /** The service's poll interval (its default): with the state max-age, the staleness bound. */
    static final int POLL_SECONDS = 5;

    final GridPlan plan;
    final List<Phase> phases;
    final List<JobLine> jobs;
    final List<Write> writes;
    private final List<Sample> samples;
    final List<String> faultLog;
    final List<PhaseResult> results = new ArrayList<>();
    final HerdForwards herd;
    final String cppNote;
    /** Frontier per-client refusals (503) in each origin's log: the origins trust the Squids, so none is expected. */
    final Map<String, Long> clientRefusals;

    GridReport(GridPlan plan, List<Phase> phases, List<JobLine> jobs, List<Write> writes, List<Sample> samples,
               List<String> faultLog, HerdForwards herd, String cppNote, Map<String, Long> clientRefusals) {
        this.herd = herd;
        this.clientRefusals = new java.util.TreeMap<>(clientRefusals);
        this.cppNote = cppNote;
        this.plan = plan;
        this.phases = phases;
        this.jobs = jobs;
        this.writes = writes;
        this.samples = samples;
        this.faultLog = faultLog;
        compute();
    }

    /** The run's phases from the herd on: herd, baseline, one per fault, after (quiet, writes settle). */
    static List<Phase> phases(GridPlan plan, long herdAt) {
        List<Phase> out = new ArrayList<>();
        long t = herdAt;
        long phase = plan.phaseSeconds * 1000L;
        Object[][] all = {
            {"herd", Fault.NONE, phase, ""},
            {"baseline", Fault.NONE, phase, ""},
            {"origin1 killed", Fault.KILL_ORIGIN, phase, "origin"},
            {"replica replay paused, then replica killed", Fault.REPLICA, phase, "replica"},
            {"site1 Squid killed", Fault.KILL_SITE_SQUID, phase, "site-squid"},
            {"regional Squid partitioned from the origins", Fault.PARTITION, plan.partitionSeconds * 1000L, "partition"},
            {"site1 link: 200 ms, 1 % loss", Fault.DEGRADE_SITE_LINK, phase, "site-link"},
            {"everything restarted", Fault.RESTART_ALL, phase, "restart"},
            {"after (no faults, no writes at the end)", Fault.NONE, Math.max(phase, plan.quietSeconds * 1000L + 5000), ""},
        };
        for (Object[] p : all) {
            String key = (String) p[3];
            if (!key.isEmpty() && !plan.faults.contains(key)) {
                continue;
            }
            long len = (Long) p[2];
            out.add(new Phase((String) p[0], (Fault) p[1], t, t + len));
            t += len;
        }
        return out;
    }

    private void compute() {
        Map<Integer, List<Write>> byFolder = new HashMap<>();
        for (Write w : writes) {
            byFolder.computeIfAbsent(w.folder(), k -> new ArrayList<>()).add(w);
        }
        for (Phase p : phases) {
            List<JobLine> in = jobs.stream().filter(j -> j.start() >= p.startMillis() && j.start() < p.endMillis())
                    .toList();
            int failed = (int) in.stream().filter(JobLine::failed).count();
            double mean = in.stream().filter(j -> !j.failed()).mapToLong(j -> j.end() - j.start()).average().orElse(0);
            int mismatches = 0;
            for (JobLine j : in) {
                if (!j.failed()) {
                    mismatches += mismatches(j, byFolder);
                }
            }
            List<Write> ws = writes.stream().filter(w -> w.committedMillis() >= p.startMillis()
                    && w.committedMillis() < p.endMillis()).toList();
            int seen = 0;
            double maxStale = 0;
            double replicaWait = -1;
            double maxFirstEnd = 0;
            for (Write w : ws) {
                long first = firstSeen(w);
                seen += first >= 0 ? 1 : 0;
                if (waitsForReplica(w)) {
                    replicaWait = Math.max(replicaWait, stateLag(w) / 1000.0);
                    continue;
                }
                if (first >= 0) {
                    maxFirstEnd = Math.max(maxFirstEnd, (first - w.committedMillis()) / 1000.0);
                }
                maxStale = Math.max(maxStale, stateLag(w) / 1000.0);
            }
            List<JobLine> cool = in.stream().filter(JobLine::cool).toList();
            List<JobLine> cpp = in.stream().filter(JobLine::cpp).toList();
            results.add(new PhaseResult(p, in.size(), failed, cool.size(),
                    (int) cool.stream().filter(JobLine::failed).count(), cpp.size(),
                    (int) cpp.stream().filter(JobLine::failed).count(), mean, originRequests(p.startMillis(), p.endMillis()),
                    ws.size(), seen, maxStale, replicaWait, maxFirstEnd, mismatches));
        }
    }

    /**
     * Whether the replica fault, not the bound, decides when a write is seen: the origins read and poll the
     * replica, so a write committed while its replay is paused or it is down is seen once it replays again, and so
     * is one committed less than a poll interval before it is killed (half-way through its phase): the origins may
     * not have polled it in between. With phases shorter than two poll intervals (GridTest's 6 s) that reaches
     * back into the phase before.
     */
    private boolean waitsForReplica(Write w) {
        for (Phase p : phases) {
            if (p.fault() == Fault.REPLICA) {
                long killed = p.startMillis() + (p.endMillis() - p.startMillis()) / 2;
                long from = Math.min(p.startMillis(), killed - POLL_SECONDS * 1000L);
                if (w.committedMillis() >= from && w.committedMillis() < p.endMillis()) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Folders of a job whose rows are not those of the data at the generation the job read. */
    private static int mismatches(JobLine j, Map<Integer, List<Write>> byFolder) {
        int bad = 0;
        for (Map.Entry<Integer, String> e : j.variants().entrySet()) {
            String gen = j.generations().get(e.getKey());
            if (e.getValue().equals("x") || gen.equals("none")) {
                bad++;
                continue;
            }
            List<Write> ws = byFolder.getOrDefault(e.getKey(), List.of());
            if (gen.equals(NO_GENERATION)) {
                // no generation in a Frontier answer: the rows must be a state the folder had by the job's end
                if (e.getValue().equals("1") && (ws.isEmpty() || ws.get(0).committedMillis() > j.end())) {
                    bad++;
                }
                continue;
            }
            boolean appended = !ws.isEmpty() && ws.get(0).token().compareTo(GenerationToken.parse(gen)) <= 0;
            if (!e.getValue().equals(appended ? "1" : "0")) {
                bad++;
            }
        }
        return bad;
    }

    /**
     * A write's staleness as the bound means it (docs/caching.md: a job that reads the state that long after the
     * commit sees the write): the latest time after the commit at which a Java job asked for a state and was given
     * one without the write (the job read the folder at an older generation), measured from the commit; 0 when no
     * job was. Measured when the job asked (the attempt that was answered), not when the job ended: a job that
     * spends seconds failing over or fetching its pinned folders read no older data for it, and an answer that
     * takes seconds to arrive on a loaded machine carries the origin's state of when it took the request up.
     */
    private long stateLag(Write w) {
        long lag = 0;
        for (JobLine j : jobs) {
            String gen = j.generations().get(w.folder());
            if (j.failed() || j.stateAt() <= w.committedMillis() || gen == null || gen.equals("none")
                    || gen.equals(NO_GENERATION)) {
                continue;
            }
            if (GenerationToken.parse(gen).compareTo(w.token()) < 0) {
                lag = Math.max(lag, j.stateAt() - w.committedMillis());
            }
        }
        return lag;
    }

    /**
     * The end of the first job that read the write's folder at its generation or later, or -1: the staleness a job
     * noticed, with the time the job took (reported beside the bound's measure, {@link #stateLag}).
     */
    private long firstSeen(Write w) {
        long first = -1;
        for (JobLine j : jobs) {
            String gen = j.generations().get(w.folder());
            if (j.failed() || gen == null || gen.equals("none") || gen.equals(NO_GENERATION) || j.end() < w.committedMillis()) {
                continue;
            }
            if (w.token().compareTo(GenerationToken.parse(gen)) <= 0 && (first < 0 || j.end() < first)) {
                first = j.end();
            }
        }
        return first;
    }

    /** Requests the origins counted between two times: increments of each origin's counter (a restart starts at 0). */
    private long originRequests(long from, long to) {
        long total = 0;
        for (String o : List.of("origin1", "origin2")) {
            long last = -1;
            for (Sample s : samples) {
                if (!s.origin().equals(o) || s.requests() < 0) {
                    continue;
                }
                if (s.millis() > from && s.millis() <= to + 1000) {
                    total += last < 0 ? 0 : s.requests() >= last ? s.requests() - last : s.requests();
                }
                last = s.requests();
            }
        }
        return total;
    }

    /**
     * The herd seen by the database: the origins' loads from the last sample before the herd to the first after its
     * last job ended, against the answers that could be asked in that window: each folder's generation at its start,
     * plus one per write committed in it or less than a poll interval before it (an origin learns of a write at its
     * next poll, so one committed just before the window can make a new generation inside it; counting only the
     * window's own writes put the bound one short in runs where that happened). Per origin one load per answer at
     * most: the Squids collapse the herd's
     * requests and an origin loads an answer once for all requests of it. (The origins keep their own caches, and
     * the 1 s samples also take in the first jobs after the herd, which the regional Squid may send to the other
     * origin: so the bound is per origin.)
     */
    record HerdLoads(long loads, long maxPerOrigin, int answers, long fromMillis, long toMillis,
                     Map<String, Long> perOrigin) {
        boolean withinBound() {
            return loads >= 0 && maxPerOrigin <= answers;
        }
    }

    HerdLoads herdLoads() {
        long herdStart = phases.get(0).startMillis();
        long herdEnd = jobs.stream().filter(JobLine::herd).mapToLong(JobLine::end).max().orElse(herdStart);
        long loads = 0;
        long maxPerOrigin = 0;
        Map<String, Long> perOrigin = new java.util.LinkedHashMap<>();
        long from = herdStart;
        long to = herdEnd;
        for (String o : List.of("origin1", "origin2")) {
            Sample before = null;
            Sample after = null;
            for (Sample s : samples) {
                if (!s.origin().equals(o) || s.loads() < 0) {
                    continue;
                }
                if (s.millis() <= herdStart) {
                    before = s;
                } else if (s.millis() >= herdEnd && after == null) {
                    after = s;
                }
            }
            if (before == null || after == null) {
                return new HerdLoads(-1, -1, 0, herdStart, herdEnd, Map.of()); // an origin was not sampled
            }
            // the loads are a difference of counters not updated together: between two samples it can step back
            long delta = Math.max(0, after.loads() - before.loads());
            loads += delta;
            maxPerOrigin = Math.max(maxPerOrigin, delta);
            perOrigin.put(o, delta);
            from = Math.min(from, before.millis());
            to = Math.max(to, after.millis());
        }
        long f0 = from - POLL_SECONDS * 1000L;
        long t0 = to;
        int answers = plan.model().folders() + (int) writes.stream()
                .filter(w -> w.committedMillis() >= f0 && w.committedMillis() <= t0).count();
        return new HerdLoads(loads, maxPerOrigin, answers, from, to, perOrigin);
    }

    long failedJobs() {
        return jobs.stream().filter(JobLine::failed).count();
    }

    long mismatches() {
        return results.stream().mapToLong(PhaseResult::mismatches).sum();
    }

    /** At most one request per URL per regional Squid (there is one), and per site Squid to its parent. */
    boolean herdWithinBound() {
        // at least one: the herd's answers came from somewhere, so a zero means the logs were not read
        return herd.distinctUrls() > 0 && herd.toOrigins() >= 1 && herd.toOrigins() <= herd.distinctUrls()
                && herd.maxPerUrlFromASite() <= 1;
    }

    int phaseCount() {
        return results.size();
    }

    long clientRefusals() {
        return clientRefusals.values().stream().mapToLong(Long::longValue).sum();
    }

    /** The staleness bound: the service's state max-age plus its poll interval. */
    int stalenessBoundSeconds() {
        return plan.stateMaxAgeSeconds + POLL_SECONDS;
    }

    /**
     * The longest staleness of the writes judged against the bound: those the replica fault holds back
     * ({@link #waitsForReplica}) are seen once it replays again and are reported apart.
     */
    double maxStalenessSeconds() {
        return results.stream().mapToDouble(PhaseResult::maxStalenessSeconds).max().orElse(0);
    }

    /** Within the bound, and measured: some job saw some write (else a 0 would only mean that nothing was read). */
    boolean stalenessWithinBound() {
        return maxStalenessSeconds() <= stalenessBoundSeconds()
                && results.stream().mapToInt(PhaseResult::writesSeen).sum() > 0;
    }

    /**
     * Phases in which some client host started no job: a host whose process ended early (in one run a host stopped
     * at the site1-Squid phase, without a word) would otherwise leave the run judged on the other host's jobs alone.
     */
    List<String> phasesMissingAHost() {
        List<String> out = new ArrayList<>();
        for (Phase p : phases) {
            long hosts = jobs.stream().filter(j -> j.start() >= p.startMillis() && j.start() < p.endMillis())
                    .map(JobLine::host).distinct().count();
            if (hosts < plan.clientHosts) {
                out.add(p.name());
            }
        }
        return out;
    }

    boolean passed() {
        return !jobs.isEmpty() && failedJobs() == 0 && mismatches() == 0 && herdWithinBound()
                && herdLoads().withinBound() && clientRefusals() == 0 && stalenessWithinBound()
                && phasesMissingAHost().isEmpty();
    }

    /** Writes summary.txt, summary.json and report.html to {@code out}; returns the summary. */
    String write(Path out) throws IOException {
        return new GridReportWriter(this).write(out);
    }

    /** Sum of every sample of {@code metric} in a Prometheus text exposition, or -1 when absent. */
    static long sum(String exposition, String metric) {
        double total = 0;
        boolean found = false;
        for (String line : exposition.split("\n")) {
            if (line.startsWith(metric + " ") || line.startsWith(metric + "{")) {
                total += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1).trim());
                found = true;
            }
        }
        return found ? Math.round(total) : -1;
    }
}
