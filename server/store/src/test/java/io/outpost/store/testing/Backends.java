package io.outpost.store.testing;

import io.outpost.store.IovStore;
import io.outpost.store.db.DatabaseConfig;
import io.outpost.testkit.MariaDbServer;
import io.outpost.testkit.PostgresServer;
import io.outpost.testkit.TempDirs;
import java.nio.file.Path;

/** Opens a fresh store on each backend the tests run against without Docker: SQLite, PostgreSQL and MariaDB. */
public enum Backends {
    SQLITE,
    POSTGRESQL,
    MARIADB;

    public DatabaseConfig freshConfig(String name) {
        return switch (this) {
            case SQLITE -> {
                Path dir = TempDirs.create("outpost-sqlite");
                yield DatabaseConfig.of("jdbc:sqlite:" + dir.resolve(name + ".db"));
            }
            case POSTGRESQL -> DatabaseConfig.of(PostgresServer.shared().createDatabase(name), "postgres", "");
            case MARIADB -> DatabaseConfig.of(MariaDbServer.shared().createDatabase(name), "root", "");
        };
    }

    public IovStore freshStore(String name) {
        return IovStore.open(freshConfig(name));
    }
}
