package io.outpost.server.pin;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

/**
 * Settings of states, pinned URLs and snapshots (prefix {@code outpost.snapshot}; docs/operations.md).
 *
 * @param stateMaxAge    lifetime of a state answer (and of the current-state snapshot): the only short-lived answer
 * @param pinnedMaxAge   lifetime of pinned answers: they never change
 * @param goneMaxAge     lifetime of the "generation gone" problem answer
 * @param inlineMaxBytes a snapshot carries a folder's answer inline up to this size, otherwise its pinned URL
 * @param minValidTime   a snapshot of time folders valid for less than this carries a warning (and is counted): jobs
 *                       at keys outside its validity get other URLs, so caches share it less
 * @param minValidLumis  the same for run-lumi folders, in lumi sections within one run (a validity that crosses a run
 *                       boundary is long enough)
 */
@ConfigurationProperties("outpost.snapshot")
public record SnapshotProperties(@DefaultValue("10s") Duration stateMaxAge, @DefaultValue("365d") Duration pinnedMaxAge,
                                 @DefaultValue("2s") Duration goneMaxAge, @DefaultValue("32KB") DataSize inlineMaxBytes,
                                 @DefaultValue("1m") Duration minValidTime, @DefaultValue("10") long minValidLumis) {
    public SnapshotProperties {
        if (minValidTime.isNegative() || minValidLumis < 0) {
            throw new IllegalArgumentException("outpost.snapshot.min-valid-time and min-valid-lumis must not be"
                    + " negative");
        }
        if (stateMaxAge.isNegative() || stateMaxAge.toSeconds() > 300) {
            throw new IllegalArgumentException("outpost.snapshot.state-max-age must be between 0 and 300s: it bounds"
                    + " how stale a job's view may be");
        }
        if (goneMaxAge.toSeconds() > 10) {
            throw new IllegalArgumentException("outpost.snapshot.gone-max-age must be at most 10s: caches must not keep"
                    + " errors");
        }
    }
}
