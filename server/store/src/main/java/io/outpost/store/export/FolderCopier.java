package io.outpost.store.export;

import io.outpost.store.db.Dialect;
import io.outpost.store.db.Payloads;
import io.outpost.store.model.Node;
import io.outpost.store.model.PayloadField;
import io.outpost.store.model.Tag;
import io.outpost.store.schema.SchemaManager;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.function.LongConsumer;

/**
 * Copies one folder of a {@link FolderPlan} from a source connection (a read transaction) into a target connection
 * (a write transaction the caller commits): nodes, tags and relations of the chain, channels, the IOV sequence
 * row, and the rows of the planned layer that overlap the key range, unchanged. Rows stream from the source and
 * go out in fixed-size batches, so memory stays bounded whatever the folder's size.
 */
final class FolderCopier {
    static final int BATCH = 2_000;
    private static final int FETCH = 2_000;

    private final String prefix;
    private final SchemaManager targetSchema;

    FolderCopier(String prefix, SchemaManager targetSchema) {
        this.prefix = prefix;
        this.targetSchema = targetSchema;
    }

    /**
     * Copies the folder, replacing whatever the target held of it. Returns the number of IOV rows copied. Without
     * {@code withIovs}, the folder's tables are made but its IOV rows left out (the channels part of an export over
     * HTTP, for a folder kept in a locked tag).
     */
    long copy(Connection src, Connection dst, FolderPlan plan, long from, long to, boolean folderExists,
              boolean withIovs, LongConsumer progress) throws SQLException {
        Node f = plan.folder();
        for (Node n : plan.ancestors()) {
            replaceRows(src, dst, prefix + "NODES", "NODE_ID = ?", n.id());
        }
        replaceRows(src, dst, prefix + "NODES", "NODE_ID = ?", f.id());
        // The folder's own tags and its relations: only those the plan needs.
        delete(dst, prefix + "TAGS", "NODE_ID = ?", f.id());
        delete(dst, prefix + "TAG2TAG", "CHILD_NODEID = ?", f.id());
        List<Tag> chain = plan.tagChain();
        for (int i = 0; i < chain.size(); i++) {
            Tag t = chain.get(i);
            delete(dst, prefix + "TAGS", "TAG_NAME = ?", t.name());
            copyRows(src, dst, prefix + "TAGS", "NODE_ID = ? AND TAG_ID = ?", t.nodeId(), t.id());
            if (i > 0) {
                Tag parent = chain.get(i - 1);
                String where = "PARENT_NODEID = ? AND PARENT_TAGID = ? AND CHILD_NODEID = ?";
                delete(dst, prefix + "TAG2TAG", where, parent.nodeId(), parent.id(), t.nodeId());
                copyRows(src, dst, prefix + "TAG2TAG", where, parent.nodeId(), parent.id(), t.nodeId());
            }
        }
        if (folderExists) {
            delete(dst, f.iovTable(), "1 = 1");
            delete(dst, f.channelTable(), "1 = 1");
            delete(dst, f.iovSeqTable(), "1 = 1");
            if (f.isMultiVersion()) {
                delete(dst, f.iov2TagTable(), "1 = 1");
            }
        } else {
            try (Statement st = dst.createStatement()) {
                for (String ddl : targetSchema.folderDdl(f)) {
                    st.execute(ddl);
                }
            }
        }
        copyRows(src, dst, f.iovSeqTable(), "1 = 1");
        copyRows(src, dst, f.channelTable(), "1 = 1");
        return withIovs ? copyIovs(src, dst, plan, from, to, progress) : 0;
    }

    private long copyIovs(Connection src, Connection dst, FolderPlan plan, long from, long to, LongConsumer progress)
            throws SQLException {
        Node f = plan.folder();
        Tag tag = plan.folderTag();
        String range = "IOV_SINCE <= ? AND IOV_UNTIL > ?";
        if (tag != null && tag.kind() == io.outpost.store.model.TagKind.STANDARD) {
            copyRows(src, dst, f.iov2TagTable(), "TAG_ID = ? AND " + range, tag.id(), to, from);
            return copyIovRows(src, dst, f, "OBJECT_ID IN (SELECT T.OBJECT_ID FROM " + f.iov2TagTable()
                    + " T WHERE T.TAG_ID = ? AND T.IOV_SINCE <= ? AND T.IOV_UNTIL > ?)", progress, tag.id(), to, from);
        }
        if (!f.isMultiVersion()) {
            return copyIovRows(src, dst, f, range, progress, to, from);
        }
        long layer = tag == null ? 0 : tag.id();
        return copyIovRows(src, dst, f, "USER_TAG_ID = ? AND NEW_HEAD_ID = 0 AND " + range, progress, layer, to, from);
    }

    /** IOV rows with their payload columns read and bound by storage type, so values cross dialects exactly. */
    private static long copyIovRows(Connection src, Connection dst, Node f, String where, LongConsumer progress,
                                    Object... binds) throws SQLException {
        List<PayloadField> fields = f.payloadSpec().fields();
        StringBuilder cols = new StringBuilder("OBJECT_ID, CHANNEL_ID, IOV_SINCE, IOV_UNTIL, USER_TAG_ID, SYS_INSTIME, "
                + "LASTMOD_DATE, ORIGINAL_ID, NEW_HEAD_ID");
        StringBuilder qs = new StringBuilder("?, ?, ?, ?, ?, ?, ?, ?, ?");
        StringBuilder read = new StringBuilder(cols);
        Dialect source = Dialect.forJdbcUrl(src.getMetaData().getURL());
        for (PayloadField p : fields) {
            cols.append(", ").append(p.column());
            read.append(", ").append(source.selectPayload(p.column(), p.column(), p.type()));
            qs.append(", ?");
        }
        long n = 0;
        try (PreparedStatement in = src.prepareStatement("SELECT " + read + " FROM " + f.iovTable() + " WHERE " + where
                + " ORDER BY OBJECT_ID");
             PreparedStatement out = dst.prepareStatement("INSERT INTO " + f.iovTable() + " (" + cols + ") VALUES ("
                     + qs + ")")) {
            in.setFetchSize(FETCH);
            bind(in, binds);
            try (ResultSet rs = in.executeQuery()) {
                int batch = 0;
                while (rs.next()) {
                    for (int i = 1; i <= 9; i++) {
                        if (i == 6 || i == 7) {
                            out.setString(i, rs.getString(i));
                        } else {
                            out.setLong(i, rs.getLong(i));
                        }
                    }
                    for (int i = 0; i < fields.size(); i++) {
                        Payloads.bind(out, 10 + i, fields.get(i).type(), Payloads.read(rs, 10 + i, fields.get(i).type()));
                    }
                    out.addBatch();
                    if (++batch == BATCH) {
                        out.executeBatch();
                        n += batch;
                        progress.accept(batch);
                        batch = 0;
                    }
                }
                if (batch > 0) {
                    out.executeBatch();
                    n += batch;
                    progress.accept(batch);
                }
            }
        }
        return n;
    }

    private static void replaceRows(Connection src, Connection dst, String table, String where, Object... binds)
            throws SQLException {
        delete(dst, table, where, binds);
        copyRows(src, dst, table, where, binds);
    }

    /** Copies the matching rows of a bookkeeping table (small integers and strings) column by column. */
    static void copyRows(Connection src, Connection dst, String table, String where, Object... binds)
            throws SQLException {
        try (PreparedStatement in = src.prepareStatement("SELECT * FROM " + table + " WHERE " + where)) {
            in.setFetchSize(FETCH);
            bind(in, binds);
            try (ResultSet rs = in.executeQuery()) {
                ResultSetMetaData md = rs.getMetaData();
                int n = md.getColumnCount();
                StringBuilder cols = new StringBuilder();
                StringBuilder qs = new StringBuilder();
                for (int i = 1; i <= n; i++) {
                    cols.append(i > 1 ? ", " : "").append(md.getColumnName(i).toUpperCase(java.util.Locale.ROOT));
                    qs.append(i > 1 ? ", ?" : "?");
                }
                try (PreparedStatement out = dst.prepareStatement("INSERT INTO " + table + " (" + cols + ") VALUES ("
                        + qs + ")")) {
                    int batch = 0;
                    while (rs.next()) {
                        for (int i = 1; i <= n; i++) {
                            out.setObject(i, value(rs, i, md.getColumnType(i)));
                        }
                        out.addBatch();
                        if (++batch == BATCH) {
                            out.executeBatch();
                            batch = 0;
                        }
                    }
                    if (batch > 0) {
                        out.executeBatch();
                    }
                }
            }
        }
    }

    /** Whole numbers as Long, whatever width the source dialect reports (Oracle's NUMBER comes as BigDecimal). */
    private static Object value(ResultSet rs, int col, int sqlType) throws SQLException {
        Object v = rs.getObject(col);
        if (v instanceof Number num && !(v instanceof Double) && !(v instanceof Float)) {
            return num.longValue();
        }
        return v;
    }

    static void delete(Connection dst, String table, String where, Object... binds) throws SQLException {
        try (PreparedStatement ps = dst.prepareStatement("DELETE FROM " + table + " WHERE " + where)) {
            bind(ps, binds);
            ps.executeUpdate();
        }
    }

    private static void bind(PreparedStatement ps, Object... binds) throws SQLException {
        for (int i = 0; i < binds.length; i++) {
            ps.setObject(i + 1, binds[i]);
        }
    }
}
