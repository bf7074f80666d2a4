package io.outpost.store.read;

import io.outpost.store.StoreException;
import io.outpost.store.db.BrowseSpec;
import io.outpost.store.db.Dialect;
import io.outpost.store.db.Layer;
import io.outpost.store.db.Payloads;
import io.outpost.store.db.Sql;
import io.outpost.store.model.ChannelSelection;
import io.outpost.store.model.Iov;
import io.outpost.store.model.Node;
import io.outpost.store.model.PayloadSpec;
import io.outpost.store.model.ValidityKey;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Runs the generic browse query and streams its rows to a consumer with a fetch size: a 200k-row browse is
 * never held in memory whole.
 */
public final class IovReader {
    /** Rows per round trip; large enough that network latency does not dominate a big browse. */
    public static final int FETCH_SIZE = 2000;

    /** Receives rows one at a time, in the order of the channel selection. */
    @FunctionalInterface
    public interface IovConsumer {
        void accept(Iov iov) throws Exception;
    }

    /** Receives rows one at a time with the rest of their IOV row ({@link BrowseSpec#wholeRows}). */
    @FunctionalInterface
    public interface IovRowConsumer {
        void accept(Iov iov, IovRowColumns row) throws Exception;
    }

    private final Dialect dialect;
    private final int timeoutSeconds;

    public IovReader(Dialect dialect, int timeoutSeconds) {
        this.dialect = dialect;
        this.timeoutSeconds = timeoutSeconds;
    }

    public static BrowseSpec spec(Node folder, Layer layer, long t1, long t2, ChannelSelection sel) {
        if (t1 < 0 || t2 < 0) {
            throw StoreException.badKey("keys must be between 0 and 2^63-1");
        }
        if (t1 > t2) {
            throw StoreException.badKey("browse range [" + t1 + ", " + t2 + "] is empty: the first key is after the last");
        }
        return new BrowseSpec(folder, layer, t1, t2, sel == null ? ChannelSelection.all() : sel, false, true);
    }

    /** Streams every IOV of the spec; returns the number of rows. */
    public long browse(Connection c, BrowseSpec spec, IovConsumer consumer) throws SQLException {
        return read(c, spec, (iov, row) -> consumer.accept(iov));
    }

    /**
     * Streams every IOV of the spec with the rest of its row (USER_TAG_ID, LASTMOD_DATE, ORIGINAL_ID, NEW_HEAD_ID;
     * for a standard tag its object's); returns the number of rows.
     */
    public long browseRows(Connection c, BrowseSpec spec, IovRowConsumer consumer) throws SQLException {
        return read(c, spec.wholeRows(), consumer);
    }

    private long read(Connection c, BrowseSpec spec, IovRowConsumer consumer) throws SQLException {
        Sql sql = dialect.browse(spec, false);
        PayloadSpec payload = spec.folder().payloadSpec();
        int rest = 6 + (spec.withPayload() ? payload.size() : 0);
        long n = 0;
        try (PreparedStatement ps = c.prepareStatement(sql.text(), ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY)) {
            ps.setFetchSize(FETCH_SIZE);
            ps.setQueryTimeout(timeoutSeconds);
            sql.bindTo(ps);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    Object[] values = spec.withPayload() ? Payloads.readAll(rs, 6, payload) : null;
                    Iov iov = new Iov(rs.getLong(2), rs.getLong(3), rs.getLong(4), rs.getLong(1), rs.getString(5), values);
                    IovRowColumns row = spec.withRowColumns() ? new IovRowColumns(rs.getLong(rest),
                            rs.getString(rest + 1), rs.getLong(rest + 2), rs.getLong(rest + 3)) : null;
                    try {
                        consumer.accept(iov, row);
                    } catch (RuntimeException e) {
                        throw e;
                    } catch (Exception e) {
                        throw new ConsumerFailure(e);
                    }
                    n++;
                }
            }
        }
        return n;
    }

    /** COOL's count: the same query wrapped in SELECT COUNT(*), without the data transfer. */
    public long count(Connection c, BrowseSpec spec) throws SQLException {
        Sql sql = dialect.browse(spec, true);
        try (PreparedStatement ps = c.prepareStatement(sql.text())) {
            ps.setQueryTimeout(timeoutSeconds);
            sql.bindTo(ps);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /**
     * Around key {@code t} in the layer, over all channels: the latest until at or before t and the earliest since
     * after t (0 and the largest key where there is none). An at-time answer stays the same between the two, as far
     * as the channels without a row at t are concerned: each is in a gap, and the gap is its validity. Counting every
     * channel, not only a selection's, can only narrow the interval.
     */
    public long[] neighbours(Connection c, Node folder, Layer layer, long t) throws SQLException {
        String table = layer.kind() == Layer.Kind.STANDARD_TAG ? folder.iov2TagTable() : folder.iovTable();
        String filter = switch (layer.kind()) {
            case SINGLE_VERSION -> "";
            case USER_TAG -> " AND USER_TAG_ID = " + layer.id() + " AND NEW_HEAD_ID = 0";
            case STANDARD_TAG -> " AND TAG_ID = " + layer.id();
        };
        long before = aggregate(c, "SELECT MAX(IOV_UNTIL) FROM " + table + " WHERE IOV_UNTIL <= ?" + filter, t, 0);
        long after = aggregate(c, "SELECT MIN(IOV_SINCE) FROM " + table + " WHERE IOV_SINCE > ?" + filter, t,
                ValidityKey.MAX);
        return new long[] {before, after};
    }

    private long aggregate(Connection c, String sql, long t, long none) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setQueryTimeout(timeoutSeconds);
            ps.setLong(1, t);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                long v = rs.getLong(1);
                return rs.wasNull() ? none : v;
            }
        }
    }

    /** Wraps a checked exception thrown by a consumer (e.g. an I/O error writing a response). */
    public static final class ConsumerFailure extends RuntimeException {
        public ConsumerFailure(Exception cause) {
            super(cause.getMessage(), cause);
        }
    }
}
