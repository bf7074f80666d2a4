package io.outpost.client;

import io.outpost.wire.AnswerKind;
import io.outpost.wire.Column;
import io.outpost.wire.Schema;
import java.util.List;

/**
 * One whole decoded answer (docs/wire-format.md): what it is about, its columns and all its rows.
 *
 * @param validSince for at-time answers the answer holds for every key in [validSince, validUntil); else 0
 * @param validUntil see validSince
 * @param encodedBytes the size of the answer on the wire (header + body + trailer)
 */
public record Answer(AnswerKind kind, String folder, String tag, long validSince, long validUntil, Schema schema,
                     List<Row> rows, long encodedBytes) {

    public Answer {
        rows = List.copyOf(rows);
    }

    public List<Column> columns() {
        return schema.columns();
    }

    public int rowCount() {
        return rows.size();
    }

    /** The rows of an {@code iovs} answer as IOVs. */
    public List<Iov> iovs() {
        if (kind != AnswerKind.IOVS) {
            throw new IllegalStateException("a " + kind.jsonName() + " answer has no IOVs");
        }
        Schema payload = schema.suffix(3);
        return rows.stream().map(r -> toIov(r, payload)).toList();
    }

    static Iov toIov(Row r, Schema payload) {
        Object[] p = new Object[payload.size()];
        for (int i = 0; i < p.length; i++) {
            p[i] = r.get(i + 3);
        }
        return new Iov((Long) r.get(0), (Long) r.get(1), (Long) r.get(2), new Row(payload, p));
    }
}
