package io.outpost.loadtest;

import io.outpost.store.workload.Workload;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Runs workloads × modes × client counts (and the ATLAS model) in an environment, within a time limit. */
public final class LoadRun {
    /**
     * What to run. An empty {@code atlasModes} skips the ATLAS model. Before the steps of a workload in a mode, a
     * warm-up of at most {@code warmup} (zero: none) at the largest client count lets the JIT compile the paths
     * being measured and fills Squid in cached mode; it is not measured, but its requests and failures are reported.
     * Each step is run as {@code slices} slices of its requests and duration, the modes taking turns.
     */
    public record Plan(List<Workload> workloads, List<Mode> modes, List<Integer> clients, double scale,
                       long requestsPerStep, Duration stepDuration, int slices, Duration warmup, Duration requestTimeout,
                       List<Mode> atlasModes, AtlasModel.Params atlas, Duration timeLimit, boolean progress) {
    }

    static final long WARMUP_MAX_REQUESTS = 1_000_000;

    private LoadRun() {
    }

    public static RunReport run(Environment env, Plan p, String command) throws Exception {
        String started = Instant.now().toString();
        long t0 = System.nanoTime();
        long limit = t0 + p.timeLimit().toNanos();
        List<String> notes = new ArrayList<>();
        List<StepResult> steps = new ArrayList<>();
        for (Workload w : p.workloads()) {
            env.populate(w, p.scale());
        }
        if (!p.atlasModes().isEmpty()) {
            env.populate(Workload.ATLAS_PROMPT, p.atlas().scale());
        }
        for (Workload w : p.workloads()) {
            WorkloadPlan plan = WorkloadPlan.of(w, p.scale());
            List<Target> targets = new ArrayList<>();
            try {
                for (Mode m : p.modes()) {
                    targets.add(env.target(m, p.requestTimeout()));
                }
                for (Target target : targets) {
                    if (!p.warmup().isZero() && System.nanoTime() < limit) {
                        notes.add(warmUp(env, target, plan, p));
                    }
                }
                List<StepResult> measured = new ArrayList<>();
                for (int c : p.clients()) {
                    if (System.nanoTime() > limit) {
                        notes.add("skipped " + w.label() + " c=" + c + ": time limit " + p.timeLimit() + " reached");
                        continue;
                    }
                    measured.addAll(SideBySide.step(env, targets, plan, c, p));
                }
                // reported mode by mode
                measured.sort(java.util.Comparator.comparingInt((StepResult r) -> p.modes().indexOf(Mode.parse(r.mode())))
                        .thenComparingInt(r -> p.clients().indexOf(r.clients())));
                steps.addAll(measured);
            } finally {
                for (Target t : targets) {
                    t.close();
                }
            }
        }
        for (Mode m : p.atlasModes()) {
            if (System.nanoTime() + p.atlas().span().toNanos() > limit) {
                notes.add("skipped the ATLAS model in " + m.label() + " mode: it would end after the time limit " + p.timeLimit());
                continue;
            }
            try (Target target = env.target(m, p.requestTimeout())) {
                Long before = dbCounter(env, m);
                StepResult r = AtlasModel.run(target, p.atlas(), p.progress());
                steps.add(r.withDbQueries(dbDelta(env, m, before, r)));
                if (p.progress()) {
                    System.err.println(oneLine(r));
                }
            }
        }
        var envDesc = new java.util.LinkedHashMap<String, String>();
        envDesc.put("java", System.getProperty("java.version") + " (" + System.getProperty("java.vm.name") + ")");
        envDesc.put("cores", String.valueOf(Runtime.getRuntime().availableProcessors()));
        envDesc.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version"));
        envDesc.putAll(env.description());
        envDesc.put("duration", String.format(Locale.ROOT, "%.1f s", (System.nanoTime() - t0) / 1e9));
        envDesc.put("bounds", "per step: " + p.requestsPerStep() + " requests or " + p.stepDuration().toSeconds()
                + " s; request time-out " + p.requestTimeout().toSeconds() + " s; whole run " + p.timeLimit().toSeconds() + " s");
        return new RunReport("outpost-loadtest", started, command, p.scale(), envDesc, steps, Targets.evaluate(steps), notes);
    }

    /** Runs the warm-up and describes it in one line (its failures are listed by class, never dropped). */
    private static String warmUp(Environment env, Target target, WorkloadPlan plan, Plan p) throws InterruptedException {
        int clients = p.clients().stream().max(Integer::compare).orElse(1);
        Long before = dbCounter(env, target.mode());
        // Bounded by time only (and a generous request cap): a short step must not end the warm-up before the JIT is done.
        StepResult w = ClosedLoopRun.run(target, plan, clients, WARMUP_MAX_REQUESTS, p.warmup(), false);
        Long db = dbDelta(env, target.mode(), before, w);
        String line = String.format(Locale.ROOT, "warm-up %s/%s (not measured): %d requests at %d clients in %.1f s, %d failed%s%s",
                w.workload(), w.mode(), w.requests(), clients, w.elapsedSeconds(), w.failed(),
                w.failures().isEmpty() ? "" : " " + w.failures(), db == null ? "" : ", " + db + " database queries");
        if (p.progress()) {
            System.err.println("  " + line);
        }
        return line;
    }

    static Long dbCounter(Environment env, Mode m) {
        return m == Mode.DIRECT ? null : env.serviceDatabaseLoads();
    }

    /** Direct mode: one browse statement per request issued; otherwise the service's count of database loads. */
    private static Long dbDelta(Environment env, Mode m, Long before, StepResult r) {
        return dbDelta(env, m, before, r.requests() - r.failures().getOrDefault(Failure.DEADLINE.name(), 0L));
    }

    static Long dbDelta(Environment env, Mode m, Long before, long requestsIssued) {
        if (m == Mode.DIRECT) {
            return requestsIssued;
        }
        Long after = env.serviceDatabaseLoads();
        return before == null || after == null ? null : after - before;
    }

    static String oneLine(StepResult r) {
        return String.format(Locale.ROOT, "  done %-14s %-8s c=%-3d %6d req %4d failed %8.2f MB/s %10.0f rows/s %8.1f req/s"
                        + " p50 %.1f ms p99 %.1f ms%s%s", r.workload(), r.mode(), r.clients(), r.requests(), r.failed(),
                r.mbPerSecond(), r.rowsPerSecond(), r.requestsPerSecond(), r.p50Millis(), r.p99Millis(),
                r.squidHitRatio() == null ? "" : String.format(Locale.ROOT, " hit %.0f%%", 100 * r.squidHitRatio()),
                r.atlas() == null ? "" : String.format(Locale.ROOT, " efficiency %.1f%%", 100 * r.atlas().efficiency()));
    }
}
