package io.outpost.store.testing;

import io.outpost.store.IovStore;
import io.outpost.store.db.DatabaseConfig;
import io.outpost.testkit.PostgresServer;
import io.outpost.testkit.TempDirs;
import java.nio.file.Path;

/** Opens a fresh store on each backend the tests run against without Docker: SQLite and PostgreSQL. */
public enum Backends {
    SQLITE,
    POSTGRESQL;

    public DatabaseConfig freshConfig(String name) {
        return switch (this) {
            case SQLITE -> {
                Path dir = TempDirs.create("outpost-sqlite");
                yield DatabaseConfig.of("jdbc:sqlite:" + dir.resolve(name + ".db"));
            }
            case POSTGRESQL -> DatabaseConfig.of(PostgresServer.shared().createDatabase(name), "postgres", "");
        };
    }

    public IovStore freshStore(String name) {
        return IovStore.open(freshConfig(name));
    }
}
