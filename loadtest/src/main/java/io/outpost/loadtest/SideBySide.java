package io.outpost.loadtest;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * One step of every mode at one client count, measured side by side: the step is cut into slices and the modes take
 * turns slice by slice, so that a change in the machine's background load during the run affects the compared
 * steps alike. Each mode's slices add up to one result (requests, latencies, failures, database queries).
 */
final class SideBySide {
    private SideBySide() {
    }

    static List<StepResult> step(Environment env, List<Target> targets, WorkloadPlan plan, int clients, LoadRun.Plan p)
            throws InterruptedException {
        int n = targets.size();
        StepRecorder[] recs = new StepRecorder[n];
        double[] seconds = new double[n];
        long[] dbQueries = new long[n];
        boolean[] dbKnown = new boolean[n];
        for (int i = 0; i < n; i++) {
            recs[i] = new StepRecorder();
            dbKnown[i] = true;
        }
        long perSlice = Math.max(1, p.requestsPerStep() / p.slices());
        Duration sliceTime = p.stepDuration().dividedBy(p.slices());
        for (int slice = 0; slice < p.slices(); slice++) {
            for (int i = 0; i < n; i++) {
                Target target = targets.get(i);
                long issued = recs[i].ok() + recs[i].failed();
                Long before = LoadRun.dbCounter(env, target.mode());
                seconds[i] += ClosedLoopRun.slice(target, plan, clients, perSlice, sliceTime, p.progress(), recs[i]);
                Long delta = LoadRun.dbDelta(env, target.mode(), before, recs[i].ok() + recs[i].failed() - issued);
                if (delta == null) {
                    dbKnown[i] = false;
                } else {
                    dbQueries[i] += delta;
                }
            }
        }
        List<StepResult> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            StepResult r = recs[i].result(plan.workload().label(), targets.get(i).mode(), clients, seconds[i])
                    .withDbQueries(dbKnown[i] ? dbQueries[i] : null);
            out.add(r);
            if (p.progress()) {
                System.err.println(LoadRun.oneLine(r));
            }
        }
        return out;
    }
}
