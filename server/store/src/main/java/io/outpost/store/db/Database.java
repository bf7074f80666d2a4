package io.outpost.store.db;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteDataSource;

/**
 * One conditions database: its dialect and two HikariCP pools, a read-only one for queries and a small one for
 * writers. Keeping them apart means a burst of reads can never starve a writer, and reads can never write.
 */
public final class Database implements AutoCloseable {
    private final DatabaseConfig config;
    /** Where reads go: the same database, or a streaming replica / read-only service of it. */
    private final DatabaseConfig readConfig;
    private final Dialect dialect;
    private final HikariDataSource writePool;
    private final HikariDataSource readPool;

    private final java.util.function.Consumer<HikariConfig> customizer;

    private Database(DatabaseConfig config, DatabaseConfig readConfig,
                     java.util.function.Consumer<HikariConfig> customizer) {
        this.config = config;
        this.readConfig = readConfig;
        this.customizer = customizer;
        this.dialect = Dialect.forJdbcUrl(config.jdbcUrl());
        this.writePool = openPool(false);
        HikariDataSource read;
        try {
            read = openPool(true);
            try (Connection c = writePool.getConnection()) {
                dialect.checkServer(c);
            }
        } catch (SQLException | RuntimeException e) {
            writePool.close();
            throw e instanceof RuntimeException r ? r : new IllegalStateException(e.getMessage(), e);
        }
        this.readPool = read;
    }

    /** A pool that cannot connect fails here, with the driver's reason and what to check. */
    private HikariDataSource openPool(boolean readOnly) {
        DatabaseConfig c = readOnly ? readConfig : config;
        try {
            return new HikariDataSource(poolConfig(readOnly));
        } catch (RuntimeException e) {
            Throwable cause = e;
            while (cause.getCause() != null && cause.getCause() != cause) {
                cause = cause.getCause();
            }
            throw new DatabaseUnusableException("cannot connect to the " + (readOnly && c != config ? "read replica " : "")
                    + "database " + c.maskedUrl() + (c.user() == null ? "" : " as user '" + c.user() + "'") + ": "
                    + cause.getMessage() + " (check the JDBC URL, user and password)", e);
        }
    }

    /** Opens both pools. Call {@link io.outpost.store.schema.SchemaManager#migrate} before the first read. */
    public static Database open(DatabaseConfig config) {
        return open(config, h -> { });
    }

    /** As {@link #open(DatabaseConfig)}, letting the caller adjust each pool (e.g. attach metrics) before it starts. */
    public static Database open(DatabaseConfig config, java.util.function.Consumer<HikariConfig> customizer) {
        if (config.jdbcUrl().startsWith("jdbc:sqlite:")) {
            createSqliteFile(config);
        }
        return new Database(config, config, customizer);
    }

    /**
     * Writes (and migrations) on {@code primary}, reads on {@code replica}: e.g. a PostgreSQL hot standby or an
     * Oracle Active Data Guard service of the same database. Both must be of the same dialect and table prefix.
     */
    public static Database open(DatabaseConfig primary, DatabaseConfig replica,
                                java.util.function.Consumer<HikariConfig> customizer) {
        if (!Dialect.forJdbcUrl(primary.jdbcUrl()).name().equals(Dialect.forJdbcUrl(replica.jdbcUrl()).name())
                || !primary.tablePrefix().equals(replica.tablePrefix())) {
            throw new IllegalArgumentException("the read replica must be the same kind of database with the same "
                    + "table prefix as the primary");
        }
        if (primary.jdbcUrl().startsWith("jdbc:sqlite:")) {
            throw new IllegalArgumentException("SQLite has no read replicas");
        }
        return new Database(primary, replica, customizer);
    }

    /** Creates the SQLite file in WAL mode, so readers go on while a writer writes. */
    private static void createSqliteFile(DatabaseConfig config) {
        SQLiteConfig c = new SQLiteConfig();
        c.setJournalMode(SQLiteConfig.JournalMode.WAL);
        try (Connection conn = c.createConnection(config.jdbcUrl())) {
            conn.createStatement().execute("PRAGMA journal_mode=WAL");
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create SQLite database " + config.jdbcUrl() + ": " + e.getMessage(), e);
        }
    }

    private HikariConfig poolConfig(boolean readOnly) {
        HikariConfig h = new HikariConfig();
        DatabaseConfig config = readOnly ? readConfig : this.config;
        h.setPoolName((readOnly ? "outpost-read" : "outpost-write") + "-" + dialect.name());
        h.setMaximumPoolSize(readOnly ? config.readPoolSize() : config.writePoolSize());
        h.setMinimumIdle(Math.min(2, readOnly ? config.readPoolSize() : config.writePoolSize()));
        h.setConnectionTimeout(config.connectionTimeout().toMillis());
        h.setAutoCommit(false);
        if (dialect instanceof SqliteDialect) {
            h.setDataSource(sqliteDataSource(readOnly));
            if (readOnly) {
                // Opening the file read-only clashes with HikariCP's read-only handling; query_only refuses writes.
                h.setConnectionInitSql("PRAGMA query_only = 1");
            }
        } else {
            h.setJdbcUrl(config.jdbcUrl());
            if (config.user() != null) {
                h.setUsername(config.user());
            }
            if (config.password() != null) {
                h.setPassword(config.password());
            }
            h.setReadOnly(readOnly);
            NetworkTimeouts.apply(h, dialect, config, readOnly);
            if (dialect instanceof MariaDbDialect && !readOnly) {
                // Connector/J sends only batched INSERTs as one bulk command by default, UPDATEs one by one; the
                // writers batch UPDATEs too (channel flags, closed IOVs, last-object pointers) and never read per-row
                // counts. Saves a seventh of the bulk loader's CPU (docs/decisions.md)
                h.addDataSourceProperty("useBulkStmts", "true");
            }
        }
        customizer.accept(h);
        return h;
    }

    private DataSource sqliteDataSource(boolean readOnly) {
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

    public Dialect dialect() {
        return dialect;
    }

    public DatabaseConfig config() {
        return config;
    }

    /** The read pool's database: {@link #config()} unless a read replica was given. */
    public DatabaseConfig readConfig() {
        return readConfig;
    }

    public String prefix() {
        return config.tablePrefix();
    }

    public HikariDataSource readPool() {
        return readPool;
    }

    public HikariDataSource writePool() {
        return writePool;
    }

    public int statementTimeoutSeconds() {
        return (int) Math.max(1, config.statementTimeout().toSeconds());
    }

    @Override
    public void close() {
        readPool.close();
        writePool.close();
    }
}
