package io.outpost.server.query;

import io.outpost.server.cache.Answer;
import io.outpost.server.rows.HeldRows;
import io.outpost.store.StoreException;
import io.outpost.store.model.Node;
import io.outpost.store.model.Tag;
import io.outpost.store.model.TagLock;
import io.outpost.store.model.ValidityKey;
import io.outpost.store.read.IovReader;
import io.outpost.store.read.RowRanges;
import io.outpost.wire.AnswerEncoder;
import io.outpost.wire.AnswerKind;
import io.outpost.wire.Codec;
import io.outpost.wire.Column;
import io.outpost.wire.ColumnType;
import io.outpost.wire.TableEncoder;
import java.util.Arrays;
import java.util.List;

/**
 * At-time, browse and count answers computed from {@link HeldRows} instead of the database: the same checks, rows,
 * order and headers as QueryService's database path.
 */
final class HeldAnswers {
    private static final List<Column> COUNT_COLUMNS = List.of(new Column("count", ColumnType.UINT63));

    private HeldAnswers() {
    }

    static Answer answer(Query q, Node folder, HeldRows held, Tag tag, TableEncoder e, String generation) {
        // the store's own argument checks (key range), so bad input fails the same way on both paths
        IovReader.spec(folder, held.layer(), q.t1(), q.t2(), q.channels());
        String name = q.channels().name();
        if (name != null && !held.hasChannelNamed(name)) {
            throw new StoreException(StoreException.Kind.CHANNEL_NOT_FOUND, "no channel named '" + name + "' in '"
                    + folder.path() + "'");
        }
        boolean immutable = tag != null && tag.lock() == TagLock.LOCKED;
        String label = QueryService.tagLabel(q, folder);
        if (q.op() == Op.COUNT) {
            e.begin(AnswerKind.COUNT, folder.path(), label, 0, 0, COUNT_COLUMNS);
            e.row(new Object[] {held.count(q.t1(), q.t2(), q.channels())});
            return finish(e, 0, 0, false, immutable, generation);
        }
        List<Column> columns = QueryService.iovColumns(folder);
        if (e instanceof AnswerEncoder binary && columns.equals(held.encodedColumns())) {
            return fromEncodedRows(q, folder.path(), held, binary, label, columns, immutable, generation);
        }
        long validSince = 0;
        long validUntil = 0;
        if (q.op() == Op.AT) {
            long[] hint = validity(q.t1(), held, q);
            validSince = hint[0];
            validUntil = hint[1];
        }
        e.begin(AnswerKind.IOVS, folder.path(), label, validSince, validUntil, columns);
        boolean[] openEnded = {false};
        held.browse(q.t1(), q.t2(), q.channels(), (channel, r) -> {
            long until = held.until(r);
            openEnded[0] |= until == ValidityKey.MAX;
            Object[] p = held.payload(r);
            Object[] v = new Object[3 + (p == null ? 0 : p.length)];
            v[0] = channel;
            v[1] = held.since(r);
            v[2] = until;
            if (p != null) {
                System.arraycopy(p, 0, v, 3, p.length);
            }
            e.row(v);
        });
        return finish(e, validSince, validUntil, openEnded[0], immutable, generation);
    }

    /**
     * The rows' held wire form appended in slices: consecutive rows in the read's order that are consecutive in the
     * layer (a channel's range; for likeLuis1iov the whole answer) are one copy. An answer of the same slices, header
     * and codec as the layer's latest finished one has its bytes: it is sent again instead of compressed again.
     * One read of the rows gives the slices and, at a key, the validity hint (the rows at t are the answer's rows).
     */
    private static Answer fromEncodedRows(Query q, String folder, HeldRows held, AnswerEncoder e, String label,
                                          List<Column> columns, boolean immutable, String generation) {
        RowRanges slices = new RowRanges();
        boolean[] openEnded = {false};
        long[] hint = {0, ValidityKey.MAX, 0}; // max since, min until, rows
        held.browse(q.t1(), q.t2(), q.channels(), (channel, r) -> {
            long until = held.until(r);
            openEnded[0] |= until == ValidityKey.MAX;
            hint[0] = Math.max(hint[0], held.since(r));
            hint[1] = Math.min(hint[1], until);
            hint[2]++;
            slices.add(r);
        });
        long validSince = 0;
        long validUntil = 0;
        if (q.op() == Op.AT) {
            long[] v = narrowed(q.t1(), held, q, hint[0], hint[1], hint[2]);
            validSince = v[0];
            validUntil = v[1];
        }
        Content key = new Content(e.codec(), e.level(), folder, label, validSince, validUntil, slices.toArray());
        HeldRows.Finished kept = held.finished();
        if (kept != null && kept.key().equals(key)) {
            return new Answer(kept.body(), e.contentType(), kept.rows(), validSince, validUntil, openEnded[0],
                    immutable, generation, null);
        }
        int[] s = key.slices();
        long contentBytes = 0;
        for (int i = 0; i < s.length; i += 2) {
            contentBytes += held.encodedStart(s[i + 1]) - held.encodedStart(s[i]);
        }
        // buffers sized from the rows and the layer's latest answer (never above the rows' size: that answer may
        // have been of many more rows), not grown from 16 KB
        e.expect(contentBytes, kept == null ? 0 : Math.min(kept.body().length, contentBytes));
        e.begin(AnswerKind.IOVS, folder, label, validSince, validUntil, columns);
        byte[] bytes = held.encodedBytes();
        for (int i = 0; i < s.length; i += 2) {
            int from = held.encodedStart(s[i]);
            e.encodedRows(bytes, from, held.encodedStart(s[i + 1]) - from, s[i + 1] - s[i]);
        }
        Answer a = finish(e, validSince, validUntil, openEnded[0], immutable, generation);
        held.keep(new HeldRows.Finished(key, a.body(), a.rows()));
        return a;
    }

    /** What a binary answer from held rows is made of besides its columns, which are the layer's own. */
    private record Content(Codec codec, int level, String folder, String tag, long validSince, long validUntil,
                           int[] slices) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Content c && codec == c.codec && level == c.level && folder.equals(c.folder)
                    && tag.equals(c.tag) && validSince == c.validSince && validUntil == c.validUntil
                    && Arrays.equals(slices, c.slices);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(slices);
        }
    }

    /**
     * As QueryService.validity: [max since, min until) of the rows at t, narrowed by the gaps the channels without a
     * row at t are in ({@link HeldRows#neighbours}).
     */
    private static long[] validity(long t, HeldRows held, Query q) {
        long[] since = {0};
        long[] until = {ValidityKey.MAX};
        long[] n = {0};
        held.browse(t, t, q.channels(), (channel, r) -> {
            n[0]++;
            since[0] = Math.max(since[0], held.since(r));
            until[0] = Math.min(until[0], held.until(r));
        });
        return narrowed(t, held, q, since[0], until[0], n[0]);
    }

    /** [since, until) of the {@code n} rows at t, narrowed by the gaps of the selected channels without a row at t. */
    private static long[] narrowed(long t, HeldRows held, Query q, long since, long until, long n) {
        if (n != held.selectedChannels(q.channels())) {
            long[] gap = held.neighbours(t, q.channels());
            since = Math.max(since, gap[0]);
            until = Math.min(until, gap[1]);
        }
        return new long[] {since, until};
    }

    private static Answer finish(TableEncoder e, long validSince, long validUntil, boolean openEnded,
                                 boolean immutable, String generation) {
        byte[] body = e.finish();
        return new Answer(body, e.contentType(), e.rows(), validSince, validUntil, openEnded, immutable, generation,
                null);
    }
}
