package io.outpost.store.testing;

import io.outpost.store.IovStore;
import io.outpost.store.db.DatabaseConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Opens a fresh store on each backend the tests run against without Docker: SQLite and PostgreSQL. */
public enum Backends {
    SQLITE,
    POSTGRESQL;

    public DatabaseConfig freshConfig(String name) {
        return switch (this) {
            case SQLITE -> {
                try {
                    Path dir = Files.createTempDirectory("outpost-sqlite");
                    deleteAtExit(dir);
                    yield DatabaseConfig.of("jdbc:sqlite:" + dir.resolve(name + ".db"));
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            }
            case POSTGRESQL -> DatabaseConfig.of(PostgresServer.shared().createDatabase(name), "postgres", "");
        };
    }

    /** SQLite files stay open until their store closes: the folders go when the test JVM ends, also on failure. */
    private static void deleteAtExit(Path dir) {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try (var files = Files.walk(dir)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException ignored) {
                // best effort: the JVM is ending
            }
        }));
    }

    public IovStore freshStore(String name) {
        return IovStore.open(freshConfig(name));
    }
}
