package io.outpost.loadtest;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The targets, evaluated on the measured steps. Throughput is successful requests per second at the
 * highest client count measured in both modes being compared (the same queries, so also rows/s).
 */
public final class Targets {
    public static final double CACHED_OVER_DIRECT = 10.0;
    public static final double PROXIED_SLOWDOWN = 1.2;

    private Targets() {
    }

    public static List<RunReport.TargetCheck> evaluate(List<StepResult> steps) {
        List<RunReport.TargetCheck> out = new ArrayList<>();
        List<String> workloads = steps.stream().filter(s -> s.atlas() == null).map(StepResult::workload).distinct().toList();
        for (String w : workloads) {
            out.add(compare(steps, w, "cached", "direct",
                    "cached >= " + fmt(CACHED_OVER_DIRECT) + "x direct throughput on repeated queries (" + w + ")",
                    ratio -> ratio >= CACHED_OVER_DIRECT, "cached/direct"));
            out.add(compare(steps, w, "proxied", "direct",
                    "proxied within " + fmt(PROXIED_SLOWDOWN) + "x of direct (" + w + ")",
                    ratio -> ratio >= 1 / PROXIED_SLOWDOWN, "proxied/direct"));
        }
        for (StepResult s : steps) {
            if (s.atlas() != null) {
                AtlasStats a = s.atlas();
                out.add(new RunReport.TargetCheck("ATLAS model (" + s.mode() + "): 100% efficiency and zero failures",
                        "efficiency == 100 % and failures == 0",
                        String.format(Locale.ROOT, "efficiency %.1f %% (%d/%d snapshots within %.1f s), %d failures",
                                100 * a.efficiency(), a.inDeadline(), a.snapshots(), a.deadlineSeconds(), s.failed()),
                        a.inDeadline() == a.snapshots() && s.failed() == 0));
            }
        }
        return out;
    }

    private static RunReport.TargetCheck compare(List<StepResult> steps, String w, String mode, String base, String name,
                                                 java.util.function.DoublePredicate ok, String ratioName) {
        Optional<Integer> clients = steps.stream().filter(s -> s.workload().equals(w) && s.mode().equals(mode) && s.atlas() == null)
                .map(StepResult::clients)
                .filter(c -> find(steps, w, base, c).isPresent())
                .max(Comparator.naturalOrder());
        if (clients.isEmpty()) {
            return new RunReport.TargetCheck(name, ratioName, "not measured (needs " + mode + " and " + base + ")", null);
        }
        StepResult a = find(steps, w, mode, clients.get()).orElseThrow();
        StepResult b = find(steps, w, base, clients.get()).orElseThrow();
        if (a.failed() > 0 || b.failed() > 0) {
            // a rate that counts only the requests that worked would flatter the mode that failed: no ratio
            return new RunReport.TargetCheck(name, ratioName + " of requests/s", String.format(Locale.ROOT,
                    "not comparable at %d clients: %d failed requests in %s, %d in %s", clients.get(), a.failed(), mode,
                    b.failed(), base), false);
        }
        double ratio = b.requestsPerSecond() == 0 ? Double.POSITIVE_INFINITY : a.requestsPerSecond() / b.requestsPerSecond();
        return new RunReport.TargetCheck(name, ratioName + " of requests/s",
                String.format(Locale.ROOT, "%s %.1f req/s vs %s %.1f req/s at %d clients: %s = %.2f",
                        mode, a.requestsPerSecond(), base, b.requestsPerSecond(), clients.get(), ratioName, ratio),
                ok.test(ratio));
    }

    /**
     * Requests of the measured steps that failed other than by missing the ATLAS model's deadline (which is its
     * target, not a wrong answer): a run that saw any did not measure what it prints.
     */
    public static long errors(List<StepResult> steps) {
        return steps.stream().mapToLong(s -> s.failed() - s.failures().getOrDefault(Failure.DEADLINE.name(), 0L)).sum();
    }

    static Optional<StepResult> find(List<StepResult> steps, String w, String mode, int clients) {
        return steps.stream().filter(s -> s.workload().equals(w) && s.mode().equals(mode) && s.clients() == clients
                && s.atlas() == null).findFirst();
    }

    private static String fmt(double d) {
        return d == Math.rint(d) ? String.valueOf((long) d) : String.valueOf(d);
    }
}
