package io.outpost.frontier.protocol;

import java.time.Duration;
import java.time.ZoneId;
import java.util.Map;
import java.util.Objects;

/**
 * Settings of one Frontier context. The keys of {@link #fromProperties} are those of the upstream servlet's
 * {@code config.properties} (plus a few of Outpost's own), so an existing Frontier configuration carries over.
 *
 * @param serverName                   prefixed to every error message (upstream {@code ServerName})
 * @param shortSeconds                 max-age for {@code ttl=short}; null = unset (upstream: 0 unless an hour is set)
 * @param shortHourOfDay               cut short max-age to the next occurrence of this local hour (0-23), or null
 * @param longSeconds                  max-age without ttl; null = the SQL plugin's 7 days
 * @param longHourOfDay                as shortHourOfDay for long
 * @param foreverSeconds               max-age for {@code ttl=forever}
 * @param sendStaleIfError             answer a request's {@code max-stale=N} with {@code stale-if-error=N}
 * @param keepaliveInterval            time between keepalives while waiting for a connection or a query (5 s)
 * @param maxDbAcquireSeconds          give up waiting for a pooled connection after this long
 * @param maxDbExecuteSeconds          keepalives during query execution stop after this long (0 = none)
 * @param maxThreads                   concurrent requests of this context beyond which the answer is 503
 * @param statementTimeoutSeconds      JDBC query timeout of every statement (short: 10 s by default)
 * @param validateLastModifiedSeconds  how long a table modification time is reused; 0 disables Last-Modified/304
 * @param expireEmptyQueriesLikeErrors give empty results the error max-age
 * @param responseBufferBytes          responses up to this size are sent with Content-Length
 * @param schemaName                   Oracle owner that COOL/CORAL put in front of table names; stripped (may be null)
 * @param zone                         time zone of the hour-of-day settings
 */
public record FrontierConfig(String serverName, Long shortSeconds, Integer shortHourOfDay, Long longSeconds,
                             Integer longHourOfDay, long foreverSeconds, boolean sendStaleIfError,
                             Duration keepaliveInterval, int maxDbAcquireSeconds, int maxDbExecuteSeconds,
                             int maxThreads, int statementTimeoutSeconds, int validateLastModifiedSeconds,
                             boolean expireEmptyQueriesLikeErrors, int responseBufferBytes, String schemaName,
                             ZoneId zone) {

    /** The SQL plugin's method expiry: one week. */
    public static final long PAYLOAD_EXPIRE_SECONDS = 7L * 24 * 3600;
    /** Upstream {@code Frontier.errorDefaultMaxAge()}. */
    public static final long ERROR_DEFAULT_MAX_AGE = 300;

    public FrontierConfig {
        Objects.requireNonNull(serverName, "serverName");
        if (shortHourOfDay == null && shortSeconds == null) {
            shortSeconds = 0L;
        }
        checkHour(shortHourOfDay);
        checkHour(longHourOfDay);
        keepaliveInterval = keepaliveInterval == null ? Duration.ofSeconds(5) : keepaliveInterval;
        if (keepaliveInterval.toMillis() < 10) {
            throw new IllegalArgumentException("keepalive interval must be at least 10 ms");
        }
        if (maxThreads < 1 || maxDbAcquireSeconds < 0 || maxDbExecuteSeconds < 0 || statementTimeoutSeconds < 0
                || validateLastModifiedSeconds < 0 || responseBufferBytes < 0 || foreverSeconds < 0) {
            throw new IllegalArgumentException("negative or zero limit in Frontier configuration");
        }
        zone = zone == null ? ZoneId.systemDefault() : zone;
    }

    private static void checkHour(Integer h) {
        if (h != null && (h < 0 || h > 23)) {
            throw new IllegalArgumentException("hour of day must be 0-23, not " + h);
        }
    }

    public static FrontierConfig defaults(String serverName) {
        return new FrontierConfig(serverName, null, null, null, null, 365L * 24 * 3600, true, Duration.ofSeconds(5),
                300, 10, 100, 10, 10, false, 256 * 1024, null, null);
    }

    /**
     * Reads the upstream keys: ServerName, ShortCacheExpireSeconds, ShortCacheExpireHourOfDay,
     * LongCacheExpireSeconds, LongCacheExpireHourOfDay, ForeverCacheExpireSeconds, SendStaleIfError, MaxThreads,
     * MaxDbAcquireSeconds, MaxDbExecuteSeconds, ValidateLastModifiedSeconds, ExpireEmptyQueriesLikeErrors; and
     * Outpost's KeepaliveSeconds, StatementTimeoutSeconds, ResponseBufferBytes, SchemaName, TimeZone.
     */
    public static FrontierConfig fromProperties(String contextName, Map<String, String> p) {
        FrontierConfig d = defaults(p.getOrDefault("ServerName", contextName));
        return new FrontierConfig(d.serverName(), longOrNull(p, "ShortCacheExpireSeconds"),
                intOrNull(p, "ShortCacheExpireHourOfDay"), longOrNull(p, "LongCacheExpireSeconds"),
                intOrNull(p, "LongCacheExpireHourOfDay"), num(p, "ForeverCacheExpireSeconds", d.foreverSeconds()),
                Boolean.parseBoolean(p.getOrDefault("SendStaleIfError", "true")),
                p.containsKey("KeepaliveSeconds") ? Duration.ofMillis((long) (Double.parseDouble(p.get("KeepaliveSeconds")) * 1000))
                        : d.keepaliveInterval(),
                (int) num(p, "MaxDbAcquireSeconds", d.maxDbAcquireSeconds()),
                (int) num(p, "MaxDbExecuteSeconds", d.maxDbExecuteSeconds()), (int) num(p, "MaxThreads", d.maxThreads()),
                (int) num(p, "StatementTimeoutSeconds", d.statementTimeoutSeconds()),
                (int) num(p, "ValidateLastModifiedSeconds", d.validateLastModifiedSeconds()),
                Boolean.parseBoolean(p.getOrDefault("ExpireEmptyQueriesLikeErrors", "false")),
                (int) num(p, "ResponseBufferBytes", d.responseBufferBytes()), p.get("SchemaName"),
                p.containsKey("TimeZone") ? ZoneId.of(p.get("TimeZone")) : null);
    }

    private static long num(Map<String, String> p, String key, long def) {
        String v = p.get(key);
        return v == null || v.isBlank() ? def : Long.parseLong(v.trim());
    }

    private static Long longOrNull(Map<String, String> p, String key) {
        String v = p.get(key);
        return v == null || v.isBlank() ? null : Long.parseLong(v.trim());
    }

    private static Integer intOrNull(Map<String, String> p, String key) {
        String v = p.get(key);
        return v == null || v.isBlank() ? null : Integer.parseInt(v.trim());
    }

    /** Error max-age: 300 s, or the short TTL when that is configured and smaller. */
    public long errorMaxAge() {
        return shortSeconds != null && shortSeconds < ERROR_DEFAULT_MAX_AGE ? shortSeconds : ERROR_DEFAULT_MAX_AGE;
    }

    public FrontierConfig withShort(Long seconds, Integer hourOfDay) {
        return new FrontierConfig(serverName, seconds, hourOfDay, longSeconds, longHourOfDay, foreverSeconds,
                sendStaleIfError, keepaliveInterval, maxDbAcquireSeconds, maxDbExecuteSeconds, maxThreads,
                statementTimeoutSeconds, validateLastModifiedSeconds, expireEmptyQueriesLikeErrors, responseBufferBytes,
                schemaName, zone);
    }

    public FrontierConfig withLong(Long seconds, Integer hourOfDay) {
        return new FrontierConfig(serverName, shortSeconds, shortHourOfDay, seconds, hourOfDay, foreverSeconds,
                sendStaleIfError, keepaliveInterval, maxDbAcquireSeconds, maxDbExecuteSeconds, maxThreads,
                statementTimeoutSeconds, validateLastModifiedSeconds, expireEmptyQueriesLikeErrors, responseBufferBytes,
                schemaName, zone);
    }

    public FrontierConfig withLimits(Duration keepalive, int acquireSeconds, int executeSeconds, int threads) {
        return new FrontierConfig(serverName, shortSeconds, shortHourOfDay, longSeconds, longHourOfDay, foreverSeconds,
                sendStaleIfError, keepalive, acquireSeconds, executeSeconds, threads, statementTimeoutSeconds,
                validateLastModifiedSeconds, expireEmptyQueriesLikeErrors, responseBufferBytes, schemaName, zone);
    }

    public FrontierConfig withResponseBuffer(int bytes) {
        return new FrontierConfig(serverName, shortSeconds, shortHourOfDay, longSeconds, longHourOfDay, foreverSeconds,
                sendStaleIfError, keepaliveInterval, maxDbAcquireSeconds, maxDbExecuteSeconds, maxThreads,
                statementTimeoutSeconds, validateLastModifiedSeconds, expireEmptyQueriesLikeErrors, bytes, schemaName,
                zone);
    }

    public FrontierConfig withSchemaName(String schema) {
        return new FrontierConfig(serverName, shortSeconds, shortHourOfDay, longSeconds, longHourOfDay, foreverSeconds,
                sendStaleIfError, keepaliveInterval, maxDbAcquireSeconds, maxDbExecuteSeconds, maxThreads,
                statementTimeoutSeconds, validateLastModifiedSeconds, expireEmptyQueriesLikeErrors, responseBufferBytes,
                schema, zone);
    }
}
