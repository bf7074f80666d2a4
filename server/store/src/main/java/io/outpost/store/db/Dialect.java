package io.outpost.store.db;

import com.zaxxer.hikari.HikariConfig;
import io.outpost.store.model.StorageType;
import java.time.Duration;
import java.util.List;
import org.flywaydb.core.api.migration.JavaMigration;

/**
 * What differs between SQLite, PostgreSQL, MariaDB and Oracle: column types, the flat-time browse query, a few
 * write statements, how a pool connects (network timeouts, bulk options), how a read replica is waited for, and the
 * migrations that are code. Everything else in the store is plain JDBC shared by all of them; code outside the
 * dialect classes asks a dialect what to do, never which database it is.
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

    /**
     * Sets up one pool's connections: by default the JDBC URL and credentials, read-only for the read pool, the
     * driver's {@link NetworkTimeouts} and {@link #bulkOptions}.
     */
    void configurePool(HikariConfig h, DatabaseConfig config, boolean readOnly) {
        h.setJdbcUrl(config.jdbcUrl());
        if (config.user() != null) {
            h.setUsername(config.user());
        }
        if (config.password() != null) {
            h.setPassword(config.password());
        }
        h.setReadOnly(readOnly);
        NetworkTimeouts.apply(h, this, config, readOnly);
        if (!readOnly) {
            bulkOptions(h);
        }
    }

    /**
     * The driver's connect timeout, TCP keepalive and (for the read pool: {@code socket} given) read timeout, in the
     * driver's own property names and units. Nothing by default.
     */
    void networkTimeouts(HikariConfig h, long connectSeconds, Duration socket) {
    }

    /** Driver options of the write pool for batched statements. Nothing by default. */
    void bulkOptions(HikariConfig h) {
    }

    /** Called before the pools open (SQLite creates its file here). */
    void beforeOpen(DatabaseConfig config) {
    }

    /** Whether reads may go to another server of the same database (a replica or a read-only service). */
    boolean hasReadReplicas() {
        return true;
    }

    /**
     * Waits (bounded) until the read pool has applied everything the primary had committed at the call: true when
     * it has, false when {@code waitMillis} ran out. True at once where reads go to the primary itself or the
     * database has no replica position to compare (the default).
     */
    public boolean awaitReplica(Database db, long waitMillis) throws java.sql.SQLException {
        return true;
    }

    /** The migrations of this database that are code, not SQL: they depend on what it holds (one table per folder). */
    public List<JavaMigration> javaMigrations() {
        return List.of();
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
