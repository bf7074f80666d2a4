package io.outpost.store.db;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.SQLException;

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
        Dialect.forJdbcUrl(config.jdbcUrl()).beforeOpen(config);
        return new Database(config, config, customizer);
    }

    /**
     * Writes (and migrations) on {@code primary}, reads on {@code replica}: e.g. a PostgreSQL hot standby or an
     * Oracle Active Data Guard service of the same database. Both must be of the same dialect and table prefix.
     */
    public static Database open(DatabaseConfig primary, DatabaseConfig replica,
                                java.util.function.Consumer<HikariConfig> customizer) {
        Dialect dialect = Dialect.forJdbcUrl(primary.jdbcUrl());
        if (dialect.getClass() != Dialect.forJdbcUrl(replica.jdbcUrl()).getClass()
                || !primary.tablePrefix().equals(replica.tablePrefix())) {
            throw new IllegalArgumentException("the read replica must be the same kind of database with the same "
                    + "table prefix as the primary");
        }
        if (!dialect.hasReadReplicas()) {
            throw new IllegalArgumentException("a " + dialect.name() + " database has no read replicas");
        }
        return new Database(primary, replica, customizer);
    }

    private HikariConfig poolConfig(boolean readOnly) {
        HikariConfig h = new HikariConfig();
        DatabaseConfig config = readOnly ? readConfig : this.config;
        h.setPoolName((readOnly ? "outpost-read" : "outpost-write") + "-" + dialect.name());
        h.setMaximumPoolSize(readOnly ? config.readPoolSize() : config.writePoolSize());
        h.setMinimumIdle(Math.min(2, readOnly ? config.readPoolSize() : config.writePoolSize()));
        h.setConnectionTimeout(config.connectionTimeout().toMillis());
        h.setAutoCommit(false);
        dialect.configurePool(h, config, readOnly);
        customizer.accept(h);
        return h;
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
