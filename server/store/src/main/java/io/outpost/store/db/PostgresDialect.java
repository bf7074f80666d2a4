package io.outpost.store.db;

import com.zaxxer.hikari.HikariConfig;
import io.outpost.store.model.StorageType;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

/**
 * PostgreSQL has no hints and misestimates the correlated since/until inequalities, so the SQL itself forces
 * the plan: a LATERAL computes each channel's lower bound first, and {@code OFFSET 0} fences the inner range
 * scan so the planner cannot flatten it into a hash join. Measured flat (see docs/benchmarks.md).
 */
public final class PostgresDialect extends Dialect {

    @Override
    public String name() {
        return "postgresql";
    }

    @Override
    public String integerType() {
        return "INTEGER";
    }

    @Override
    public String bigintType() {
        return "BIGINT";
    }

    @Override
    public String stringType(int length) {
        return "VARCHAR(" + length + ")";
    }

    @Override
    public String typeOf(StorageType type) {
        return switch (type) {
            case BOOL -> "BOOLEAN";
            case UCHAR, INT16 -> "SMALLINT";
            case UINT16, INT32 -> "INTEGER";
            case UINT32, UINT63, INT64 -> "BIGINT";
            case FLOAT -> "REAL";
            case DOUBLE -> "DOUBLE PRECISION";
            case STRING255 -> "VARCHAR(255)";
            case STRING4K -> "VARCHAR(4000)";
            case STRING64K, STRING16M -> "TEXT";
            case BLOB64K, BLOB16M -> "BYTEA";
        };
    }

    @Override
    public Sql browse(BrowseSpec spec, boolean count) {
        Sql sql = new Sql();
        String x = spec.layerTable();
        sql.append(count ? "SELECT COUNT(*) FROM (SELECT " : "SELECT ");
        spec.appendColumns(sql, this);
        sql.append(" FROM ").append(spec.folder().channelTable()).append(" C2")
                .append(" CROSS JOIN LATERAL (SELECT COALESCE((SELECT MAX(I1.IOV_SINCE) FROM ").append(x)
                .append(" I1 WHERE I1.CHANNEL_ID = C2.CHANNEL_ID");
        spec.layer().appendFilter(sql, "I1");
        sql.append(" AND I1.IOV_SINCE <= ").bind(spec.t1()).append("), ").bind(spec.t1()).append(") AS LO) B");
        sql.append(" CROSS JOIN LATERAL (SELECT * FROM ").append(x).append(" I WHERE I.CHANNEL_ID = C2.CHANNEL_ID");
        spec.layer().appendFilter(sql, "I");
        sql.append(" AND I.IOV_SINCE >= B.LO AND I.IOV_SINCE <= ").bind(spec.t2())
                .append(" AND I.IOV_UNTIL > ").bind(spec.t1()).append(" OFFSET 0) I3");
        if (spec.joinsPayloadRow()) {
            sql.append(" JOIN ").append(spec.folder().iovTable()).append(" I4 ON I4.OBJECT_ID = I3.OBJECT_ID");
        }
        sql.append(" WHERE 1 = 1");
        spec.appendChannelFilter(sql);
        sql.append(count ? ") S" : " ORDER BY " + spec.order().orderBy());
        return sql;
    }

    /**
     * One statement for all rows: the parameters become arrays, unnested into a derived table, and the statement
     * is applied to each of its rows. {@code UPDATE t SET a = ? WHERE k = ?} becomes
     * {@code UPDATE t SET a = V.C1 FROM unnest(?::bigint[], ?::bigint[]) AS V(C1, C2) WHERE t.k = V.C2}.
     */
    @Override
    public void executeForEach(java.sql.Connection c, String sql, Object constant, long[]... columns)
            throws java.sql.SQLException {
        if (columns[0].length == 0) {
            return;
        }
        int constants = constant == null ? 0 : 1;
        String rewritten = ArrayRewrite.rewrite(sql, constants, columns.length);
        if (rewritten == null) {
            super.executeForEach(c, sql, constant, columns);
            return;
        }
        try (java.sql.PreparedStatement ps = c.prepareStatement(rewritten)) {
            if (constant != null) {
                ps.setObject(1, constant);
            }
            for (int k = 0; k < columns.length; k++) {
                Long[] boxed = new Long[columns[k].length];
                for (int r = 0; r < boxed.length; r++) {
                    boxed[r] = columns[k][r];
                }
                ps.setArray(constants + k + 1, c.createArrayOf("bigint", boxed));
            }
            ps.executeUpdate();
        }
    }

    @Override
    public String insertChannelIfMissingSql(String channelTable) {
        return "INSERT INTO " + channelTable + " (CHANNEL_ID, LAST_OBJECT_ID, HAS_NEW_DATA) VALUES (?, 0, 0)"
                + " ON CONFLICT (CHANNEL_ID) DO NOTHING";
    }

    @Override
    void networkTimeouts(HikariConfig h, long connectSeconds, Duration socket) {
        h.addDataSourceProperty("connectTimeout", Long.toString(connectSeconds));
        h.addDataSourceProperty("tcpKeepAlive", "true");
        if (socket != null) {
            h.addDataSourceProperty("socketTimeout", Long.toString(Math.max(1, socket.toSeconds())));
        }
    }

    /**
     * A streaming replica compares its replay position with the primary's current WAL position; a read pool on the
     * primary itself answers at once (it is not in recovery).
     */
    @Override
    public boolean awaitReplica(Database db, long waitMillis) throws SQLException {
        String lsn;
        try (Connection c = db.writePool().getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT pg_current_wal_lsn()::text")) {
            rs.next();
            lsn = rs.getString(1);
            c.rollback();
        }
        long deadline = System.nanoTime() + waitMillis * 1_000_000L;
        long pause = 1;
        try (Connection c = db.readPool().getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT NOT pg_is_in_recovery() OR "
                     + "COALESCE(pg_last_wal_replay_lsn() >= ?::pg_lsn, false)")) {
            ps.setString(1, lsn);
            while (true) {
                boolean done;
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    done = rs.getBoolean(1);
                }
                c.rollback();
                if (done) {
                    return true;
                }
                if (System.nanoTime() > deadline) {
                    return false;
                }
                try {
                    Thread.sleep(pause);   // polling the replica's position: PostgreSQL has no replay notification
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
                pause = Math.min(50, pause * 2);
            }
        }
    }
}
