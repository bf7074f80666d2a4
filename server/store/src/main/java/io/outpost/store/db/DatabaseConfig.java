package io.outpost.store.db;

import java.time.Duration;
import java.util.regex.Pattern;

/**
 * How to reach one conditions database. {@code tablePrefix} is COOL's database prefix (e.g. {@code CONDBR2_}),
 * so an existing COOL schema keeps its table names.
 */
public record DatabaseConfig(String jdbcUrl, String user, String password, String tablePrefix, int readPoolSize,
                             int writePoolSize, Duration connectionTimeout, Duration statementTimeout) {
    private static final Pattern PREFIX = Pattern.compile("[A-Z][A-Z0-9_]{0,20}_");

    public DatabaseConfig {
        if (jdbcUrl == null || jdbcUrl.isBlank()) {
            throw new IllegalArgumentException("a JDBC URL is required");
        }
        tablePrefix = tablePrefix == null ? "OUTPOST_" : tablePrefix;
        if (!PREFIX.matcher(tablePrefix).matches()) {
            throw new IllegalArgumentException("table prefix '" + tablePrefix
                    + "' must be upper-case letters, digits and '_', ending in '_'");
        }
        if (readPoolSize < 1 || writePoolSize < 1) {
            throw new IllegalArgumentException("pool sizes must be at least 1");
        }
        connectionTimeout = connectionTimeout == null ? Duration.ofSeconds(5) : connectionTimeout;
        statementTimeout = statementTimeout == null ? Duration.ofSeconds(60) : statementTimeout;
        if (connectionTimeout.toMillis() < 250) {
            throw new IllegalArgumentException("connection timeout must be at least 250 ms (HikariCP's floor)");
        }
    }

    public static DatabaseConfig of(String jdbcUrl) {
        return new DatabaseConfig(jdbcUrl, null, null, null, 8, 2, null, null);
    }

    public static DatabaseConfig of(String jdbcUrl, String user, String password) {
        return new DatabaseConfig(jdbcUrl, user, password, null, 8, 2, null, null);
    }

    public DatabaseConfig withPools(int read, int write) {
        return new DatabaseConfig(jdbcUrl, user, password, tablePrefix, read, write, connectionTimeout, statementTimeout);
    }

    public DatabaseConfig withTimeouts(Duration connection, Duration statement) {
        return new DatabaseConfig(jdbcUrl, user, password, tablePrefix, readPoolSize, writePoolSize, connection, statement);
    }

    /** The URL with any password parameter masked, for logs. */
    public String maskedUrl() {
        return jdbcUrl.replaceAll("(?i)(password=)[^&;]*", "$1****");
    }
}
