package io.outpost.store.db;

import com.zaxxer.hikari.HikariConfig;
import io.outpost.store.model.StorageType;
import java.sql.Connection;
import java.sql.SQLException;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteDataSource;

/**
 * SQLite: CROSS JOIN fixes the join order (channels drive a nested loop), and the correlated MAX probe
 * becomes the lower bound of a range scan on the (CHANNEL_ID, IOV_SINCE, IOV_UNTIL) index.
 */
public final class SqliteDialect extends Dialect {

    @Override
    public String name() {
        return "sqlite";
    }

    @Override
    public String integerType() {
        return "INTEGER";
    }

    @Override
    public String bigintType() {
        return "INTEGER";
    }

    @Override
    public String stringType(int length) {
        return "TEXT";
    }

    @Override
    public String typeOf(StorageType type) {
        return switch (type) {
            case FLOAT, DOUBLE -> "REAL";
            case STRING255, STRING4K, STRING64K, STRING16M -> "TEXT";
            case BLOB64K, BLOB16M -> "BLOB";
            default -> "INTEGER";
        };
    }

    @Override
    public Sql browse(BrowseSpec spec, boolean count) {
        return CoalesceMaxBrowse.build(this, spec, count, "", " CROSS JOIN ", "");
    }

    @Override
    public String lockSequenceSql(String seqTable) {
        // beginWrite already holds SQLite's database-wide write lock: no row lock needed.
        return "SELECT CURRENT_VALUE FROM " + seqTable + " WHERE SEQUENCE_NAME = ?";
    }

    /**
     * A write as the first statement takes SQLite's write lock (waiting up to the busy timeout) before anything is
     * read, so the transaction can never fail later on a stale read snapshot.
     */
    @Override
    public void beginWrite(java.sql.Connection c, String prefix) throws java.sql.SQLException {
        try (var st = c.createStatement()) {
            st.executeUpdate("UPDATE " + prefix + "DB_ATTRIBUTES SET DB_ATTRIBUTE_VALUE = DB_ATTRIBUTE_VALUE"
                    + " WHERE DB_ATTRIBUTE_NAME = 'SCHEMA_VERSION'");
        }
    }

    @Override
    public String insertChannelIfMissingSql(String channelTable) {
        return "INSERT OR IGNORE INTO " + channelTable + " (CHANNEL_ID, LAST_OBJECT_ID, HAS_NEW_DATA) VALUES (?, 0, 0)";
    }

    /** Creates the SQLite file (and its folder) in WAL mode, so readers go on while a writer writes. */
    @Override
    void beforeOpen(DatabaseConfig config) {
        java.nio.file.Path parent = java.nio.file.Path.of(config.jdbcUrl().substring("jdbc:sqlite:".length())).getParent();
        if (parent != null) {
            try {
                java.nio.file.Files.createDirectories(parent);
            } catch (java.io.IOException e) {
                throw new IllegalStateException("cannot create the folder of SQLite database " + config.jdbcUrl()
                        + ": " + e.getMessage(), e);
            }
        }
        SQLiteConfig c = new SQLiteConfig();
        c.setJournalMode(SQLiteConfig.JournalMode.WAL);
        try (Connection conn = c.createConnection(config.jdbcUrl())) {
            conn.createStatement().execute("PRAGMA journal_mode=WAL");
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create SQLite database " + config.jdbcUrl() + ": " + e.getMessage(), e);
        }
    }

    @Override
    boolean hasReadReplicas() {
        return false;
    }

    @Override
    void configurePool(HikariConfig h, DatabaseConfig config, boolean readOnly) {
        h.setDataSource(dataSource(config));
        if (readOnly) {
            // Opening the file read-only clashes with HikariCP's read-only handling; query_only refuses writes.
            h.setConnectionInitSql("PRAGMA query_only = 1");
        }
    }

    private static SQLiteDataSource dataSource(DatabaseConfig config) {
        SQLiteConfig c = new SQLiteConfig();
        c.setBusyTimeout((int) Math.max(1000, config.statementTimeout().toMillis()));
        c.setSynchronous(SQLiteConfig.SynchronousMode.NORMAL);
        c.setJournalMode(SQLiteConfig.JournalMode.WAL);
        // Transactions stay DEFERRED: the driver opens one as soon as auto-commit is off, and an IMMEDIATE one
        // would hold the write lock on every idle pooled connection. Writers take the lock with their first
        // statement instead (Dialect.beginWrite).
        SQLiteDataSource ds = new SQLiteDataSource(c);
        ds.setUrl(config.jdbcUrl());
        return ds;
    }
}
