package io.outpost.frontier;

import io.outpost.frontier.protocol.FrontierConfig;
import io.outpost.frontier.sql.TablePolicy;
import io.outpost.store.db.Database;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One Frontier context: the name in {@code /<name>/Frontier/*}, the database it serves (through that database's
 * read-only pool), its configuration, optional metrics, and the tables its SQL may read (null: COOL's, with the
 * database's table prefix). The database is owned by the caller.
 */
public record FrontierContext(String name, Database database, FrontierConfig config, FrontierMetrics metrics,
                              TablePolicy tables) {
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.-]{1,64}");

    public FrontierContext {
        Objects.requireNonNull(database, "database");
        Objects.requireNonNull(config, "config");
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("context name '" + name + "' must be 1-64 letters, digits, '_', '.', '-'");
        }
        metrics = metrics == null ? FrontierMetrics.NONE : metrics;
        tables = tables == null ? TablePolicy.cool(database.prefix()) : tables;
    }

    public FrontierContext(String name, Database database, FrontierConfig config, FrontierMetrics metrics) {
        this(name, database, config, metrics, null);
    }

    public FrontierContext(String name, Database database, FrontierConfig config) {
        this(name, database, config, FrontierMetrics.NONE, null);
    }

    public FrontierContext(String name, Database database) {
        this(name, database, FrontierConfig.defaults(name), FrontierMetrics.NONE, null);
    }

    /** The owner that Oracle data-dictionary answers carry: the configured SchemaName, else the context's name. */
    public String dictionaryOwner() {
        String s = config.schemaName();
        return (s == null ? name : s).toUpperCase(java.util.Locale.ROOT);
    }

    /** The servlet mapping the application should register: {@code /<name>/Frontier/*}. */
    public String servletMapping() {
        return "/" + name + "/Frontier/*";
    }
}
