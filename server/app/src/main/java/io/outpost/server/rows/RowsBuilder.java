package io.outpost.server.rows;

import io.outpost.store.db.Layer;
import io.outpost.store.model.Channel;
import io.outpost.store.model.Iov;
import io.outpost.store.read.IovRowColumns;
import io.outpost.wire.Column;
import io.outpost.wire.EncodedRows;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Collects the rows of one full-layer browse (ordered by channel, then since) into {@link HeldRows}, giving up
 * with {@link TooBig} as soon as the estimated heap size passes the limit. Given the answer columns, it also
 * encodes every row once in the binary wire form, which binary answers then copy instead of encoding. The rows'
 * time strings (SYS_INSTIME, LASTMOD_DATE) are shared per layer: one copy of each distinct text, counted once.
 */
final class RowsBuilder {
    /** The folder layer does not fit the per-folder budget: it is read from the database instead. */
    static final class TooBig extends RuntimeException {
        TooBig(long limit) {
            super("more than " + limit + " bytes of rows", null, false, false);
        }
    }

    /** The rest of the IOV row: four ids and references to the two (shared) time strings. */
    private static final int ROW_COLUMN_BYTES = 4 * 8 + 2 * 8;
    /** Per-row cost besides the payload values: since, until, the payload array and its header, the row's columns. */
    private static final int ROW_BYTES = 8 + 8 + 8 + 16 + ROW_COLUMN_BYTES;
    /** One distinct time string: the String and its byte array (Latin-1) beside its characters. */
    private static final int STRING_BYTES = 56;
    /** The least one row costs: its own fields and an empty payload array. */
    static final int MIN_ROW_BYTES = ROW_BYTES + 16;

    private final long limit;
    private long[] channelIds = new long[64];
    private int[] firstRow = new int[65];
    private long[] channelBytes = new long[64];
    private int channels;
    private long[] since = new long[1024];
    private long[] until = new long[1024];
    private Object[][] payload = new Object[1024][];
    private HeldRows.RowColumns rowColumns = rowColumns(1024);
    /** Each distinct time string of the layer once. */
    private final Map<String, String> strings = new HashMap<>();
    private int rows;
    private long bytes;
    private final List<Column> columns;
    /** The rows' wire form and where each row's starts (null: not encoded). */
    private final EncodedRows encoded;
    private int[] encodedStart;

    private final boolean keepsAnswers;

    /**
     * {@code columns}: the answer columns to encode the rows for, or null to hold the values only; {@code keepsAnswers}:
     * whether the held rows keep their latest finished answer (counted as the encoded rows' size again).
     */
    RowsBuilder(long limit, List<Column> columns, boolean keepsAnswers) {
        this.limit = limit;
        this.columns = columns;
        this.keepsAnswers = columns != null && keepsAnswers;
        this.encoded = columns == null ? null : new EncodedRows(columns, 64 * 1024);
        this.encodedStart = columns == null ? null : new int[1024];
    }

    /** Adds the next row of a browse ordered by channel, then since. */
    void add(Iov iov, IovRowColumns row) {
        int r = rows;
        add(iov.channelId(), iov.since(), iov.until(), iov.payload());
        HeldRows.RowColumns c = rowColumns;
        c.objectId()[r] = iov.objectId();
        c.userTagId()[r] = row.userTagId();
        c.insertionTime()[r] = shared(iov.insertionTime());
        c.lastModDate()[r] = shared(row.lastModDate());
        c.originalId()[r] = row.originalId();
        c.newHeadId()[r] = row.newHeadId();
        checkLimit();
    }

    /** The layer's one copy of {@code s}, counted in its bytes the first time. */
    private String shared(String s) {
        if (s == null) {
            return null;
        }
        String known = strings.putIfAbsent(s, s);
        if (known != null) {
            return known;
        }
        bytes += STRING_BYTES + s.length() * (s.chars().allMatch(ch -> ch < 256) ? 1L : 2L);
        return s;
    }

    private static HeldRows.RowColumns rowColumns(int n) {
        return new HeldRows.RowColumns(new long[n], new long[n], new String[n], new String[n], new long[n], new long[n]);
    }

    private static HeldRows.RowColumns copyOf(HeldRows.RowColumns c, int n) {
        return new HeldRows.RowColumns(Arrays.copyOf(c.objectId(), n), Arrays.copyOf(c.userTagId(), n),
                Arrays.copyOf(c.insertionTime(), n), Arrays.copyOf(c.lastModDate(), n),
                Arrays.copyOf(c.originalId(), n), Arrays.copyOf(c.newHeadId(), n));
    }

    private void checkLimit() {
        if (bytes > limit) {
            throw new TooBig(limit);
        }
    }

    /** Copies every row of held channel index ci in bulk (an incremental refresh keeps unchanged channels so). */
    void copyChannel(HeldRows held, int ci) {
        int from = held.firstRowOf(ci);
        int count = held.endRowOf(ci) - from;
        startChannel(held.channelIdAt(ci));
        ensureRows(rows + count);
        held.copyRows(from, count, since, until, payload, rowColumns, rows);
        HeldRows.RowColumns c = rowColumns;
        for (int r = rows; r < rows + count; r++) {
            c.insertionTime()[r] = shared(c.insertionTime()[r]);
            c.lastModDate()[r] = shared(c.lastModDate()[r]);
        }
        if (encoded != null) {
            if (held.encodedColumns() == null || !held.encodedColumns().equals(columns)
                    || held.keepsAnswers() != keepsAnswers) {
                throw new IllegalStateException("held rows encoded for other columns");
            }
            int base = held.encodedStart(from);
            int shift = encoded.size() - base;
            for (int i = 0; i < count; i++) {
                encodedStart[rows + i] = held.encodedStart(from + i) + shift;
            }
            int len = held.encodedStart(from + count) - base;
            encoded.append(held.encodedBytes(), base, len); // its bytes are in the channel's bytes already
        }
        rows += count;
        long b = held.channelBytesAt(ci);
        channelBytes[channels - 1] += b;
        bytes += b;
        checkLimit();
    }

    private void startChannel(long channel) {
        if (channels > 0 && channelIds[channels - 1] >= channel) {
            throw new IllegalStateException("channels are not added in ascending order");
        }
        if (channels == channelIds.length) {
            channelIds = Arrays.copyOf(channelIds, channels * 2);
            firstRow = Arrays.copyOf(firstRow, channels * 2 + 1);
            channelBytes = Arrays.copyOf(channelBytes, channels * 2);
        }
        channelIds[channels] = channel;
        firstRow[channels] = rows;
        channels++;
        bytes += 20;
    }

    private void ensureRows(int n) {
        if (n > since.length) {
            int size = Math.max(n, since.length * 2);
            since = Arrays.copyOf(since, size);
            until = Arrays.copyOf(until, size);
            payload = Arrays.copyOf(payload, size);
            rowColumns = copyOf(rowColumns, size);
            if (encodedStart != null) {
                encodedStart = Arrays.copyOf(encodedStart, size + 1);
            }
        }
    }

    private void add(long channel, long rowSince, long rowUntil, Object[] rowPayload) {
        if (channels == 0 || channelIds[channels - 1] != channel) {
            if (channels > 0 && channelIds[channels - 1] > channel) {
                throw new IllegalStateException("browse rows are not ordered by channel");
            }
            startChannel(channel);
        }
        ensureRows(rows + 1);
        since[rows] = rowSince;
        until[rows] = rowUntil;
        payload[rows] = rowPayload;
        long b = ROW_BYTES + payloadBytes(rowPayload);
        if (encoded != null) {
            encodedStart[rows] = encoded.size();
            Object[] v = new Object[3 + (rowPayload == null ? 0 : rowPayload.length)];
            v[0] = channel;
            v[1] = rowSince;
            v[2] = rowUntil;
            if (rowPayload != null) {
                System.arraycopy(rowPayload, 0, v, 3, rowPayload.length);
            }
            int n = encoded.add(v);
            b += (keepsAnswers ? 2L * n : n) + 4L;
        }
        rows++;
        channelBytes[channels - 1] += b; // the time strings are counted once per layer, not per channel
        bytes += b;
    }

    HeldRows build(String generation, Layer layer, List<Channel> known) {
        int[] first = Arrays.copyOf(firstRow, channels + 1);
        first[channels] = rows;
        HeldRows.Encoded wire = null;
        if (encoded != null) {
            int[] starts = Arrays.copyOf(encodedStart, rows + 1);
            starts[rows] = encoded.size();
            wire = new HeldRows.Encoded(columns, encoded.toArray(), starts, keepsAnswers);
        }
        return new HeldRows(generation, layer, Arrays.copyOf(channelIds, channels), first, Arrays.copyOf(since, rows),
                Arrays.copyOf(until, rows), Arrays.copyOf(payload, rows), copyOf(rowColumns, rows),
                Arrays.copyOf(channelBytes, channels), known, bytes, wire);
    }

    /** A rough heap estimate of one row's payload values (compact strings, boxed numbers). */
    static long payloadBytes(Object[] values) {
        if (values == null) {
            return 0;
        }
        long n = 16L + 4L * values.length;
        for (Object v : values) {
            if (v instanceof String s) {
                n += 40 + s.length() * (s.chars().allMatch(ch -> ch < 256) ? 1L : 2L);
            } else if (v instanceof byte[] b) {
                n += 16 + b.length;
            } else if (v != null) {
                n += 24;
            }
        }
        return n;
    }
}
