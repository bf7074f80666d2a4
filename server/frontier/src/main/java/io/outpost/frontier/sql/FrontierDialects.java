package io.outpost.frontier.sql;

import io.outpost.store.db.Dialect;
import io.outpost.store.db.MariaDbDialect;
import io.outpost.store.db.OracleDialect;
import io.outpost.store.db.PostgresDialect;
import io.outpost.store.db.SqliteDialect;
import java.util.Map;

/**
 * The Frontier dialect of each store dialect, keyed by the store dialect's class (the store knows nothing of the
 * Frontier endpoint). A fifth database adds its pair here.
 */
public final class FrontierDialects {
    public static final FrontierDialect SQLITE = new SqliteFrontierDialect();
    public static final FrontierDialect POSTGRESQL = new PostgresFrontierDialect();
    public static final FrontierDialect MARIADB = new MariaDbFrontierDialect();
    public static final FrontierDialect ORACLE = new OracleFrontierDialect();

    private static final Map<Class<? extends Dialect>, FrontierDialect> BY_STORE_DIALECT = Map.of(
            SqliteDialect.class, SQLITE,
            PostgresDialect.class, POSTGRESQL,
            MariaDbDialect.class, MARIADB,
            OracleDialect.class, ORACLE);

    private FrontierDialects() {
    }

    /** The Frontier dialect of a store dialect; a database without one is refused rather than sent another's SQL. */
    public static FrontierDialect of(Dialect storeDialect) {
        FrontierDialect d = BY_STORE_DIALECT.get(storeDialect.getClass());
        if (d == null) {
            throw new IllegalArgumentException("the Frontier endpoint cannot serve a " + storeDialect.name()
                    + " database: it serves SQLite, PostgreSQL, MariaDB/MySQL and Oracle");
        }
        return d;
    }
}
