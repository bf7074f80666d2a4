package io.outpost.wire;

import java.util.List;

/**
 * Rows in their wire form (docs/wire-format.md), one after the other, as {@link AnswerEncoder#row} writes them into
 * an answer's content: rows that many answers send can be encoded once and appended with
 * {@link AnswerEncoder#encodedRows}.
 */
public final class EncodedRows {
    private final ColumnType[] types;
    private final GrowableBytes bytes;

    public EncodedRows(List<Column> columns, int capacity) {
        this.types = columns.stream().map(Column::type).toArray(ColumnType[]::new);
        this.bytes = new GrowableBytes(Math.max(16, capacity));
    }

    /** Encodes one row of the columns' values; returns the number of bytes it took. */
    public int add(Object[] values) {
        int before = bytes.size();
        AnswerEncoder.writeRow(types, values, bytes);
        return bytes.size() - before;
    }

    /** Appends rows encoded before (for the same columns). */
    public void append(byte[] src, int off, int len) {
        bytes.bytes(src, off, len);
    }

    public int size() {
        return bytes.size();
    }

    public byte[] toArray() {
        return bytes.toArray();
    }
}
