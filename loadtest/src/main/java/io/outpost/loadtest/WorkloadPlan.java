package io.outpost.loadtest;

import io.outpost.store.model.ValidityKey;
import io.outpost.store.workload.Workload;
import java.util.ArrayList;
import java.util.List;

/**
 * The queries a workload's clients issue (docs/benchmarks.md, "Load generator"), at a scale factor:
 * <ul>
 * <li>likeLuis1iov: all channels of the one folder at t (one ~1 MB answer at full scale);</li>
 * <li>likeLuis1channel: every IOV of the one channel (browse of the whole key range);</li>
 * <li>smallQueries: all channels at t, folder after folder (one ~100 KB answer per folder);</li>
 * <li>coolBrowse: every IOV of every channel of the one folder;</li>
 * <li>atlasPrompt: a snapshot, all channels of every folder at the key of the job's 5-second event window.</li>
 * </ul>
 * Clients of a closed-loop run take the queries in turn, over and over ("repeated queries"): the same canonical URLs,
 * which a cache serves after the first round.
 */
public record WorkloadPlan(Workload workload, double scale, List<Query> queries) {
    /** Length of one ATLAS event window ("5 s of event data per job"). */
    public static final long ATLAS_WINDOW = 5_000_000_000L;

    public static final List<Workload> SUPPORTED = List.of(Workload.LIKE_LUIS_1IOV, Workload.LIKE_LUIS_1CHANNEL,
            Workload.SMALL_QUERIES, Workload.COOL_BROWSE, Workload.ATLAS_PROMPT);

    public static WorkloadPlan of(Workload w, double scale) {
        List<Query> qs = new ArrayList<>();
        int channels = w.channels(scale);
        int iovs = w.iovsPerChannel(scale);
        switch (w) {
            // One IOV per channel, open-ended: any key after T0 gives the same answer.
            case LIKE_LUIS_1IOV -> qs.add(new Query(w.folderPath(0), Workload.T0 + 1, Workload.T0 + 1,
                    1_000_000_000_000L, channels));
            // Every IOV: since <= MAX and until > t1 for any t1 before the first IOV.
            case LIKE_LUIS_1CHANNEL, COOL_BROWSE -> qs.add(new Query(w.folderPath(0), Workload.T0, ValidityKey.MAX,
                    Workload.T0 / 2, (long) channels * iovs));
            // The middle IOV of every folder; keys inside it (up to 0.9 s later) give the same answer.
            case SMALL_QUERIES -> {
                long t = Workload.T0 + (iovs / 2) * w.iovLength() + 1;
                for (int f = 0; f < w.folders(scale); f++) {
                    qs.add(new Query(w.folderPath(f), t, t, 900_000_000L, channels));
                }
            }
            case ATLAS_PROMPT -> qs.addAll(atlasSnapshot(scale, 0));
            default -> throw new IllegalArgumentException("workload " + w.label() + " is not one the load generator runs; "
                    + "supported: likeLuis1iov, likeLuis1channel, smallQueries, coolBrowse, atlasPrompt");
        }
        return new WorkloadPlan(w, scale, List.copyOf(qs));
    }

    /**
     * The snapshot of ATLAS event window {@code window}: one at-query per folder at the window's start. IOV edges
     * are staggered by 3 ms per channel, so the window keys start after the last channel's edge (3 s) and may move
     * by up to 1 ms without crossing an edge.
     */
    public static List<Query> atlasSnapshot(double scale, long window) {
        Workload w = Workload.ATLAS_PROMPT;
        long windows = w.iovsPerChannel(scale) * w.iovLength() / ATLAS_WINDOW;
        long t = Workload.T0 + w.staggerNanos() * w.channels(scale) + Math.floorMod(window, windows) * ATLAS_WINDOW;
        List<Query> qs = new ArrayList<>();
        for (int f = 0; f < w.folders(scale); f++) {
            qs.add(new Query(w.folderPath(f), t, t, 1_000_000L, w.channels(scale)));
        }
        return qs;
    }

    /** Query number {@code ticket} of the endless round-robin over the plan. */
    public Query query(long ticket) {
        return queries.get((int) Math.floorMod(ticket, (long) queries.size()));
    }

    /** Rows of one pass over every query of the plan. */
    public long rowsPerRound() {
        return queries.stream().mapToLong(Query::expectedRows).sum();
    }
}
