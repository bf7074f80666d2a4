package io.outpost.store.db;

import io.outpost.store.model.StorageType;

/**
 * What differs between SQLite, PostgreSQL, MariaDB and Oracle: column types, the flat-time browse query, and a few
 * write statements. Everything else in the store is plain JDBC shared by all three.
 */
public abstract class Dialect {

    /** Name used for migration folders and in logs: sqlite, postgresql, mariadb, oracle. */
    public abstract String name();

    public abstract String integerType();

    public abstract String bigintType();

    public abstract String stringType(int length);

    public abstract String typeOf(StorageType type);

    /**
     * The column type of a name (a path, tag or channel name): compared exactly, byte for byte, as every name is
     * (docs/schema.md, "Names"). The plain string type wherever that already compares exactly.
     */
    public String nameType(int length) {
        return stringType(length);
    }

    /**
     * The generic browse query of COOL: every IOV of the layer overlapping the closed range [t1, t2], with a
     * per-channel lower bound {@code COALESCE(MAX(since ≤ t1), t1)} so its cost follows the rows returned, not
     * their position in the table.
     */
    public abstract Sql browse(BrowseSpec spec, boolean count);

    /** Statement taking the folder's writer lock on its sequence row (one bind: the sequence name). */
    public String lockSequenceSql(String seqTable) {
        return "SELECT CURRENT_VALUE FROM " + seqTable + " WHERE SEQUENCE_NAME = ? FOR UPDATE";
    }

    /** Inserts a channel row unless it exists (binds: channel id). */
    public abstract String insertChannelIfMissingSql(String channelTable);

    /**
     * Runs one statement for many parameter rows. The first {@code constant} placeholders of {@code sql} take the
     * same value for every row; the following ones take one column of {@code columns} each (long[] of the same
     * length). The default is a JDBC batch; PostgreSQL rewrites it into a single statement over arrays, which saves
     * the server a round of work per row.
     */
    public void executeForEach(java.sql.Connection c, String sql, Object constant, long[]... columns)
            throws java.sql.SQLException {
        if (columns[0].length == 0) {
            return;
        }
        int first = constant == null ? 1 : 2;
        try (java.sql.PreparedStatement ps = c.prepareStatement(sql)) {
            for (int r = 0; r < columns[0].length; r++) {
                if (constant != null) {
                    ps.setObject(1, constant);
                }
                for (int k = 0; k < columns.length; k++) {
                    ps.setLong(first + k, columns[k][r]);
                }
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    /** Extra text after CREATE TABLE (...), e.g. nothing. */
    public String tableOptions() {
        return "";
    }

    /**
     * Whether CREATE TABLE joins the open transaction. Where it does not (MariaDB commits before it), a new folder's
     * tables are created before its node row, so a failure never leaves a folder without tables.
     */
    public boolean transactionalDdl() {
        return true;
    }

    /** Refuses a server this dialect does not support (e.g. too old), naming what is needed; run once at open. */
    public void checkServer(java.sql.Connection c) throws java.sql.SQLException {
    }

    /** A payload column in a select list ({@code qualified} names it with its table alias) that reads back exactly. */
    public String selectPayload(String qualified, String column, StorageType type) {
        return qualified;
    }

    /** Whether INSERT ... SELECT may run as a JDBC batch (MariaDB's bulk protocol refuses it). */
    public boolean batchesInsertSelect() {
        return true;
    }

    /** Called first in every write transaction; SQLite takes its database write lock here. */
    public void beginWrite(java.sql.Connection c, String prefix) throws java.sql.SQLException {
    }

    public static Dialect forJdbcUrl(String url) {
        if (url.startsWith("jdbc:sqlite:")) {
            return new SqliteDialect();
        }
        if (url.startsWith("jdbc:postgresql:")) {
            return new PostgresDialect();
        }
        if (url.startsWith("jdbc:mariadb:")) {
            return new MariaDbDialect();
        }
        if (url.startsWith("jdbc:oracle:")) {
            return new OracleDialect();
        }
        throw new IllegalArgumentException("unsupported JDBC URL '" + url
                + "': use jdbc:sqlite:, jdbc:postgresql:, jdbc:mariadb: (also for MySQL) or jdbc:oracle:");
    }
}
