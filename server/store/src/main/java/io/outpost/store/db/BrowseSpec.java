package io.outpost.store.db;

import io.outpost.store.model.ChannelOrder;
import io.outpost.store.model.ChannelSelection;
import io.outpost.store.model.Node;

/**
 * Everything the generic browse query needs: folder, layer, closed key range [t1, t2] (every IOV with
 * since ≤ t2 and until &gt; t1), channel selection and order. {@code onlyNewData} restricts to channels flagged
 * HAS_NEW_DATA (used by writers). {@code withRowColumns} also selects, after the payload, the rest of COOL's IOV row
 * ({@link #ROW_COLUMNS}, a standard tag's from its objects) for those who serve whole rows (held rows for Frontier).
 */
public record BrowseSpec(Node folder, Layer layer, long t1, long t2, ChannelSelection channels, boolean onlyNewData,
                         boolean withPayload, boolean withRowColumns) {
    /** The IOV row's columns the browse selects only {@code withRowColumns}, in this order. */
    public static final java.util.List<String> ROW_COLUMNS =
            java.util.List.of("USER_TAG_ID", "LASTMOD_DATE", "ORIGINAL_ID", "NEW_HEAD_ID");

    public BrowseSpec(Node folder, Layer layer, long t1, long t2, ChannelSelection channels, boolean onlyNewData,
                      boolean withPayload) {
        this(folder, layer, t1, t2, channels, onlyNewData, withPayload, false);
    }

    /** The same browse, selecting the whole IOV row too. */
    public BrowseSpec wholeRows() {
        return new BrowseSpec(folder, layer, t1, t2, channels, onlyNewData, withPayload, true);
    }

    public ChannelOrder order() {
        return channels.order();
    }

    /** The table holding the layer's interval rows (IOV2TAG for standard tags, else IOVS). */
    String layerTable() {
        return layer.kind() == Layer.Kind.STANDARD_TAG ? folder.iov2TagTable() : folder.iovTable();
    }

    boolean joinsPayloadRow() {
        return layer.kind() == Layer.Kind.STANDARD_TAG;
    }

    /**
     * The select list: IOV columns from I3, insertion time and payload (as {@code dialect} reads it exactly), then
     * with {@code withRowColumns} the other columns of the row holding the payload.
     */
    void appendColumns(Sql sql, Dialect dialect) {
        String obj = joinsPayloadRow() ? "I4" : "I3";
        sql.append("I3.OBJECT_ID, I3.CHANNEL_ID, I3.IOV_SINCE, I3.IOV_UNTIL, ").append(obj).append(".SYS_INSTIME");
        if (withPayload) {
            for (var f : folder.payloadSpec().fields()) {
                sql.append(", ").append(dialect.selectPayload(obj + "." + f.column(), f.column(), f.type()));
            }
        }
        if (withRowColumns) {
            for (String c : ROW_COLUMNS) {
                sql.append(", ").append(obj).append(".").append(c);
            }
        }
    }

    /** How many channels of the folder the selection covers (used for at-time validity hints). */
    public Sql channelCountSql() {
        Sql sql = new Sql().append("SELECT COUNT(*) FROM ").append(folder.channelTable()).append(" C2 WHERE 1 = 1");
        appendChannelFilter(sql);
        return sql;
    }

    /** Channel predicate on C2, with a leading AND, or nothing for all channels. */
    void appendChannelFilter(Sql sql) {
        if (onlyNewData) {
            sql.append(" AND C2.HAS_NEW_DATA = 1");
        }
        ChannelSelection sel = channels;
        if (sel.isAll()) {
            return;
        }
        if (sel.name() != null) {
            sql.append(" AND C2.CHANNEL_NAME = ").bind(sel.name());
            return;
        }
        sql.append(" AND (");
        boolean first = true;
        for (ChannelSelection.Range r : sel.ranges()) {
            if (!first) {
                sql.append(" OR ");
            }
            first = false;
            if (r.first() == r.last()) {
                sql.append("C2.CHANNEL_ID = ").bind(r.first());
            } else {
                sql.append("(C2.CHANNEL_ID >= ").bind(r.first()).append(" AND C2.CHANNEL_ID <= ").bind(r.last()).append(")");
            }
        }
        sql.append(")");
    }
}
