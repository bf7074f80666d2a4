package io.outpost.frontier.sql;

import java.util.List;

/**
 * One of COOL's IOV reads recognised in a Frontier statement ({@link CoolReads}), with the values its literals fix:
 * per channel of {@code [firstChannel, lastChannel]} (and, with {@code joinsChannels}, only channels of the folder's
 * channel table), the rows whose since is at least the latest since at or before {@code probeKey} (or
 * {@code probeKey} itself when the channel has none), at most {@code sinceAtMost}, and whose until is after
 * {@code untilAfter}; ordered by channel, then since; each row the values of {@code columns}.
 *
 * @param iovTable      the folder's IOV table, upper-case and unqualified
 * @param joinsChannels the statement joins the folder's channel table on CHANNEL_ID
 * @param columns       the IOV table's columns the statement selects, upper-case, in order
 * @param probeKey      the key of COOL's {@code COALESCE((SELECT MAX(IOV_SINCE) ... <= t), t)} bound
 * @param sinceAtMost   the largest since a row may have ({@link Long#MAX_VALUE}: no bound)
 * @param untilAfter    a row's until must be greater ({@link Long#MIN_VALUE}: no bound)
 */
public record CoolRead(String iovTable, boolean joinsChannels, List<String> columns, long probeKey,
                       long sinceAtMost, long untilAfter, long firstChannel, long lastChannel) {

    public CoolRead {
        columns = List.copyOf(columns);
    }

    /** The rows valid at one key (COOL's at-time read): the row of each channel whose interval holds the key. */
    public boolean isAtTime() {
        return sinceAtMost == probeKey && untilAfter == probeKey;
    }

    /** Whether every channel is selected. */
    public boolean allChannels() {
        return firstChannel == Long.MIN_VALUE && lastChannel == Long.MAX_VALUE;
    }

    /** What the answer's column header depends on: the table and the selected columns. */
    public String headerKey() {
        return iovTable + (joinsChannels ? "+C" : "") + ":" + String.join(",", columns);
    }
}
