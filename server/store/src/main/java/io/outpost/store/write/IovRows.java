package io.outpost.store.write;

import io.outpost.store.db.Payloads;
import io.outpost.store.model.Node;
import io.outpost.store.model.PayloadField;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;

/** Batched INSERT of IOV rows, in chunks below Oracle's array limit. */
final class IovRows {
    static final int CHUNK = 10_000;

    /** One row of the IOVS table as a writer builds it. */
    static final class Row {
        final long objectId;
        final long channelId;
        long since;
        long until;
        final long userTagId;
        final long originalId;
        long newHeadId;
        final Object[] payload;
        /** For remnants of stored rows: the row whose payload the database copies (payload is then null). */
        long copyFrom;

        Row(long objectId, long channelId, long since, long until, long userTagId, long originalId, Object[] payload) {
            this.objectId = objectId;
            this.channelId = channelId;
            this.since = since;
            this.until = until;
            this.userTagId = userTagId;
            this.originalId = originalId;
            this.payload = payload;
        }
    }

    /** The columns of every IOV row before its payload's, in the order {@link #bindIovColumns} binds them. */
    static final String IOV_COLUMNS = "OBJECT_ID, CHANNEL_ID, IOV_SINCE, IOV_UNTIL, USER_TAG_ID, SYS_INSTIME, "
            + "LASTMOD_DATE, ORIGINAL_ID, NEW_HEAD_ID";
    /** One parameter for each of {@link #IOV_COLUMNS}. */
    static final String IOV_PARAMETERS = "?, ?, ?, ?, ?, ?, ?, ?, ?";

    private IovRows() {
    }

    /** Binds parameters 1 to 9 to the row's {@link #IOV_COLUMNS}, {@code now} its insertion and modification time. */
    static void bindIovColumns(PreparedStatement ps, Row r, String now) throws SQLException {
        ps.setLong(1, r.objectId);
        ps.setLong(2, r.channelId);
        ps.setLong(3, r.since);
        ps.setLong(4, r.until);
        ps.setLong(5, r.userTagId);
        ps.setString(6, now);
        ps.setString(7, now);
        ps.setLong(8, r.originalId);
        ps.setLong(9, r.newHeadId);
    }

    static String insertSql(Node folder) {
        StringBuilder cols = new StringBuilder(IOV_COLUMNS);
        StringBuilder qs = new StringBuilder(IOV_PARAMETERS);
        for (PayloadField f : folder.payloadSpec().fields()) {
            cols.append(", ").append(f.column());
            qs.append(", ?");
        }
        return "INSERT INTO " + folder.iovTable() + " (" + cols + ") VALUES (" + qs + ")";
    }

    static void insert(Connection c, Node folder, List<Row> rows, String now) throws SQLException {
        if (rows.isEmpty()) {
            return;
        }
        List<PayloadField> fields = folder.payloadSpec().fields();
        try (PreparedStatement ps = c.prepareStatement(insertSql(folder))) {
            int inBatch = 0;
            for (Row r : rows) {
                bindIovColumns(ps, r, now);
                for (int i = 0; i < fields.size(); i++) {
                    Payloads.bind(ps, 10 + i, fields.get(i).type(), r.payload[i]);
                }
                ps.addBatch();
                if (++inBatch == CHUNK) {
                    ps.executeBatch();
                    inBatch = 0;
                }
            }
            if (inBatch > 0) {
                ps.executeBatch();
            }
        }
    }
}
