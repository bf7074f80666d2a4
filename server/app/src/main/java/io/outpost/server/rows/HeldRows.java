package io.outpost.server.rows;

import io.outpost.store.db.Layer;
import io.outpost.store.model.Channel;
import io.outpost.store.model.ChannelOrder;
import io.outpost.store.model.ChannelSelection;
import io.outpost.wire.Column;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Every IOV of one folder layer (SV rows, a user tag's visible rows, or a standard tag's snapshot) at one folder
 * generation, in columns sorted by channel then since. Within a layer a channel's intervals never overlap, so
 * both since and until ascend inside a channel and every read is two binary searches per channel. Immutable once
 * built; answers the same rows, in the same order, as the store's browse query on the same layer. Besides the
 * interval and payload each row keeps the rest of COOL's IOV row ({@link RowColumns}), which Frontier clients select.
 */
public final class HeldRows {
    /** Receives the index of each row a read selects, in the read's order. */
    @FunctionalInterface
    public interface RowVisitor {
        void row(long channel, int index);
    }

    private final String generation;
    private final Layer layer;
    private final long[] channelIds;
    private final int[] firstRow;
    private final long[] since;
    private final long[] until;
    private final Object[][] payload;
    private final RowColumns rowColumns;
    private final long[] channelBytes;
    private final long[] knownChannels;
    private final Map<String, long[]> channelsByName;
    private final long bytes;
    private final Encoded encoded;

    /**
     * Every row in the binary wire form for {@code columns}, one after the other in row order; row r is
     * {@code bytes[start[r], start[r + 1])}, so the rows of a channel's range are one slice. {@code keepsAnswers}:
     * the latest finished answer is kept too ({@link #keep}).
     */
    record Encoded(List<Column> columns, byte[] bytes, int[] start, boolean keepsAnswers) {
    }

    /**
     * A finished binary answer of these rows and what it was made of ({@code key}: the same key, the same bytes).
     * Kept so that the next answer of the same content (another key inside the same IOVs) is not compressed again.
     */
    public record Finished(Object key, byte[] body, long rows) {
    }

    /**
     * Per row the IOV row's other columns as the database holds them (a standard tag's from its object's row):
     * OBJECT_ID, USER_TAG_ID, SYS_INSTIME, LASTMOD_DATE (null when NULL), ORIGINAL_ID, NEW_HEAD_ID. The two time
     * strings are shared by every row of the layer with the same text (rows of one write have the same).
     */
    record RowColumns(long[] objectId, long[] userTagId, String[] insertionTime, String[] lastModDate,
                      long[] originalId, long[] newHeadId) {
    }

    /** The latest finished answer kept; null when none is or answers are not kept. */
    private volatile Finished finished;

    HeldRows(String generation, Layer layer, long[] channelIds, int[] firstRow, long[] since, long[] until,
             Object[][] payload, RowColumns rowColumns, long[] channelBytes, List<Channel> channels, long bytes,
             Encoded encoded) {
        this.encoded = encoded;
        this.generation = generation;
        this.layer = layer;
        this.channelIds = channelIds;
        this.firstRow = firstRow;
        this.since = since;
        this.until = until;
        this.payload = payload;
        this.rowColumns = rowColumns;
        this.channelBytes = channelBytes;
        this.knownChannels = channels.stream().mapToLong(Channel::id).sorted().toArray();
        Map<String, List<Long>> names = new HashMap<>();
        for (Channel c : channels) {
            if (c.name() != null) {
                names.computeIfAbsent(c.name(), n -> new ArrayList<>()).add(c.id());
            }
        }
        Map<String, long[]> byName = new HashMap<>();
        names.forEach((n, ids) -> byName.put(n, ids.stream().mapToLong(Long::longValue).sorted().toArray()));
        this.channelsByName = byName;
        this.bytes = bytes + knownChannels.length * 8L + channels.size() * 64L;
    }

    public String generation() {
        return generation;
    }

    public Layer layer() {
        return layer;
    }

    /** Estimated heap bytes held (the cache's weight). */
    public long bytes() {
        return bytes;
    }

    public int size() {
        return since.length;
    }

    public long since(int row) {
        return since[row];
    }

    public long until(int row) {
        return until[row];
    }

    public Object[] payload(int row) {
        return payload[row];
    }

    public long objectId(int row) {
        return rowColumns.objectId()[row];
    }

    public long userTagId(int row) {
        return rowColumns.userTagId()[row];
    }

    /** SYS_INSTIME. */
    public String insertionTime(int row) {
        return rowColumns.insertionTime()[row];
    }

    /** LASTMOD_DATE, or null. */
    public String lastModDate(int row) {
        return rowColumns.lastModDate()[row];
    }

    public long originalId(int row) {
        return rowColumns.originalId()[row];
    }

    public long newHeadId(int row) {
        return rowColumns.newHeadId()[row];
    }

    /** The columns the rows are held encoded for, or null when they are not held encoded. */
    public List<Column> encodedColumns() {
        return encoded == null ? null : encoded.columns();
    }

    /** The encoded rows ({@link #encodedStart} says where each starts); only when {@link #encodedColumns} is set. */
    public byte[] encodedBytes() {
        return encoded.bytes();
    }

    boolean keepsAnswers() {
        return encoded != null && encoded.keepsAnswers();
    }

    /** The latest finished answer kept, or null. */
    public Finished finished() {
        return finished;
    }

    /**
     * Keeps a finished answer in place of the one before, when answers are kept and it is no larger than the encoded
     * rows (the rows budget counts that much again for it).
     */
    public void keep(Finished answer) {
        if (encoded != null && encoded.keepsAnswers() && answer.body().length <= encoded.bytes().length + 1024) {
            finished = answer;
        }
    }

    /** Where row {@code row}'s wire form starts in {@link #encodedBytes}; {@code size()} gives the end of the last. */
    public int encodedStart(int row) {
        return encoded.start()[row];
    }

    private int channelIndexOf(int row) {
        int i = Arrays.binarySearch(firstRow, 0, channelIds.length, row);
        if (i >= 0) {
            return i; // first rows strictly ascend: only channels with rows are held
        }
        return -i - 2;
    }

    int channelCount() {
        return channelIds.length;
    }

    long channelIdAt(int ci) {
        return channelIds[ci];
    }

    int firstRowOf(int ci) {
        return firstRow[ci];
    }

    int endRowOf(int ci) {
        return firstRow[ci + 1];
    }

    long channelBytesAt(int ci) {
        return channelBytes[ci];
    }

    void copyRows(int from, int count, long[] sinceTo, long[] untilTo, Object[][] payloadTo, RowColumns rowsTo,
                  int to) {
        System.arraycopy(since, from, sinceTo, to, count);
        System.arraycopy(until, from, untilTo, to, count);
        System.arraycopy(payload, from, payloadTo, to, count);
        RowColumns r = rowColumns;
        System.arraycopy(r.objectId(), from, rowsTo.objectId(), to, count);
        System.arraycopy(r.userTagId(), from, rowsTo.userTagId(), to, count);
        System.arraycopy(r.insertionTime(), from, rowsTo.insertionTime(), to, count);
        System.arraycopy(r.lastModDate(), from, rowsTo.lastModDate(), to, count);
        System.arraycopy(r.originalId(), from, rowsTo.originalId(), to, count);
        System.arraycopy(r.newHeadId(), from, rowsTo.newHeadId(), to, count);
    }

    /** Whether the folder has a channel of this name (the store's CHANNEL_NOT_FOUND check). */
    public boolean hasChannelNamed(String name) {
        return channelsByName.containsKey(name);
    }

    /** How many of the folder's channels the selection covers (the at-time validity hint's denominator). */
    public long selectedChannels(ChannelSelection sel) {
        if (sel.isAll()) {
            return knownChannels.length;
        }
        if (sel.name() != null) {
            long[] ids = channelsByName.get(sel.name());
            return ids == null ? 0 : ids.length;
        }
        long n = 0;
        for (ChannelSelection.Range r : sel.ranges()) {
            n += lowerBound(knownChannels, knownChannels.length, r.last() == Long.MAX_VALUE ? r.last() : r.last() + 1)
                    - lowerBound(knownChannels, knownChannels.length, r.first());
        }
        return n;
    }

    /**
     * Around key {@code t} in the selected channels: the latest until at or before t and the earliest since after t
     * (0 and the largest key where there is none). Together with the rows valid at t they bound the keys for which
     * an at-time answer stays the same: a channel without a row at t is in a gap, and the gap is its validity.
     */
    public long[] neighbours(long t, ChannelSelection sel) {
        long[] out = {0, io.outpost.store.model.ValidityKey.MAX};
        forEachChannel(sel, ci -> {
            int lo = firstOverlapping(ci, t);
            int hi = endOverlapping(ci, t);
            if (lo > firstRow[ci]) {
                out[0] = Math.max(out[0], until[lo - 1]);
            }
            if (hi < firstRow[ci + 1]) {
                out[1] = Math.min(out[1], since[hi]);
            }
        });
        return out;
    }

    /** Number of rows overlapping the closed range [t1, t2] in the selected channels. */
    public long count(long t1, long t2, ChannelSelection sel) {
        long[] n = {0};
        forEachChannel(sel, ci -> {
            int lo = firstOverlapping(ci, t1);
            int hi = endOverlapping(ci, t2);
            if (hi > lo) {
                n[0] += hi - lo;
            }
        });
        return n[0];
    }

    /** Visits every row overlapping [t1, t2] (since ≤ t2 and until &gt; t1) in the selection's order. */
    public void browse(long t1, long t2, ChannelSelection sel, RowVisitor out) {
        ChannelOrder order = sel.order();
        if (order == ChannelOrder.CHANNEL_BEFORE_SINCE || order == ChannelOrder.CHANNEL_BEFORE_SINCE_DESC) {
            boolean desc = order == ChannelOrder.CHANNEL_BEFORE_SINCE_DESC;
            forEachChannel(sel, ci -> {
                int lo = firstOverlapping(ci, t1);
                int hi = endOverlapping(ci, t2);
                long channel = channelIds[ci];
                if (desc) {
                    for (int r = hi - 1; r >= lo; r--) {
                        out.row(channel, r);
                    }
                } else {
                    for (int r = lo; r < hi; r++) {
                        out.row(channel, r);
                    }
                }
            });
            return;
        }
        // since before channel: gather, then sort by (since, channel); (channel, since) is unique in a layer
        List<int[]> ranges = new ArrayList<>();
        int[] total = {0};
        forEachChannel(sel, ci -> {
            int lo = firstOverlapping(ci, t1);
            int hi = endOverlapping(ci, t2);
            if (hi > lo) {
                ranges.add(new int[] {ci, lo, hi});
                total[0] += hi - lo;
            }
        });
        Integer[] rows = new Integer[total[0]];
        int k = 0;
        for (int[] r : ranges) {
            for (int i = r[1]; i < r[2]; i++) {
                rows[k++] = i;
            }
        }
        boolean desc = order == ChannelOrder.SINCE_DESC_BEFORE_CHANNEL;
        Arrays.sort(rows, (a, b) -> {
            int c = Long.compare(since[a], since[b]);
            if (desc) {
                c = -c;
            }
            return c != 0 ? c : Integer.compare(a, b); // rows ascend by channel, so row order is channel order
        });
        for (Integer r : rows) {
            out.row(channelIds[channelIndexOf(r)], r);
        }
    }

    /** First row of channel index ci whose until is after t1 (until ascends within a channel). */
    private int firstOverlapping(int ci, long t1) {
        int lo = firstRow[ci];
        int hi = firstRow[ci + 1];
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (until[mid] > t1) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        return lo;
    }

    /** One past the last row of channel index ci whose since is at most t2. */
    private int endOverlapping(int ci, long t2) {
        int lo = firstRow[ci];
        int hi = firstRow[ci + 1];
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (since[mid] <= t2) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    @FunctionalInterface
    private interface ChannelVisitor {
        void channel(int index);
    }

    /** Visits the indexes of held channels in the selection, ascending by channel id. */
    private void forEachChannel(ChannelSelection sel, ChannelVisitor v) {
        int n = channelIds.length;
        if (sel.isAll()) {
            for (int ci = 0; ci < n; ci++) {
                v.channel(ci);
            }
            return;
        }
        if (sel.name() != null) {
            long[] ids = channelsByName.get(sel.name());
            if (ids != null) {
                for (long id : ids) {
                    int ci = Arrays.binarySearch(channelIds, id);
                    if (ci >= 0) {
                        v.channel(ci);
                    }
                }
            }
            return;
        }
        for (ChannelSelection.Range r : sel.ranges()) {
            for (int ci = lowerBound(channelIds, n, r.first()); ci < n && channelIds[ci] <= r.last(); ci++) {
                v.channel(ci);
            }
        }
    }

    private static int lowerBound(long[] a, int n, long key) {
        int lo = 0;
        int hi = n;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (a[mid] < key) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
}
