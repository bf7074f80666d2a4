package io.outpost.frontier.sql;

import io.outpost.store.db.Layer;
import java.util.List;

/**
 * One of COOL's IOV reads recognised in a Frontier statement ({@link CoolReads}), with the values its literals fix:
 * per channel of {@code [firstChannel, lastChannel]} (and, with {@code joinsChannels}, only channels of the folder's
 * channel table), the rows of {@code layer} whose since is at least the latest since at or before {@code probeKey}
 * (or {@code probeKey} itself when the channel has none), at most {@code sinceAtMost}, and whose until is after
 * {@code untilAfter}; ordered by channel, then since; each row the values of {@code columns}.
 *
 * @param iovTable      the folder's IOV table ({@code <folder>_IOVS}), upper-case and unqualified
 * @param layer         the rows read: all rows ({@link Layer#SV}, no layer filter), the visible rows of the HEAD or a
 *                      user tag ({@code USER_TAG_ID = n AND NEW_HEAD_ID = 0}), or a standard tag's snapshot
 *                      ({@code <folder>_IOV2TAG} with {@code TAG_ID = n})
 * @param joinsChannels the statement joins the folder's channel table on CHANNEL_ID
 * @param columns       the columns the statement selects, in order
 * @param probeKey      the key of COOL's {@code COALESCE((SELECT MAX(IOV_SINCE) ... <= t), t)} bound
 * @param sinceAtMost   the largest since a row may have ({@link Long#MAX_VALUE}: no bound)
 * @param untilAfter    a row's until must be greater ({@link Long#MIN_VALUE}: no bound)
 */
public record CoolRead(String iovTable, Layer layer, boolean joinsChannels, List<Selected> columns, long probeKey,
                       long sinceAtMost, long untilAfter, long firstChannel, long lastChannel) {

    /**
     * A selected column: its table (upper-case, unqualified: the layer's table, or for a standard tag the folder's IOV
     * table joined on OBJECT_ID) and its name, upper-case.
     */
    public record Selected(String table, String name) {
        /** Whether it is a column of the folder's tag table ({@code <folder>_IOV2TAG}), not of its IOV table. */
        public boolean ofTagTable() {
            return table.endsWith("_IOV2TAG");
        }
    }

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

    /** What the answer's column header depends on: the selected columns and their tables. */
    public String headerKey() {
        StringBuilder b = new StringBuilder(iovTable).append(joinsChannels ? "+C:" : ":");
        for (Selected s : columns) {
            b.append(s.table()).append('.').append(s.name()).append(',');
        }
        return b.toString();
    }
}
