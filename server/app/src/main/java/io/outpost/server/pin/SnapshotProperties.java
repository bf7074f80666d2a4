package io.outpost.server.pin;

import jakarta.validation.constraints.Min;
import java.time.Duration;
import org.hibernate.validator.constraints.time.DurationMax;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.annotation.Validated;

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
@Validated
@ConfigurationProperties("outpost.snapshot")
public record SnapshotProperties(
        @DefaultValue("10s")
        @DurationMin(seconds = 0, message = STATE_MAX_AGE) @DurationMax(seconds = 300, message = STATE_MAX_AGE)
        Duration stateMaxAge,
        @DefaultValue("365d") Duration pinnedMaxAge,
        @DefaultValue("2s") @DurationMax(seconds = 10, message = "outpost.snapshot.gone-max-age must be at most 10s:"
                + " caches must not keep errors") Duration goneMaxAge,
        @DefaultValue("32KB") DataSize inlineMaxBytes,
        @DefaultValue("1m") @DurationMin(seconds = 0, message = "outpost.snapshot.min-valid-time must not be negative")
        Duration minValidTime,
        @DefaultValue("10") @Min(value = 0, message = "outpost.snapshot.min-valid-lumis must not be negative")
        long minValidLumis) {

    private static final String STATE_MAX_AGE = "outpost.snapshot.state-max-age must be between 0 and 300s: it bounds"
            + " how stale a job's view may be";
}
