package io.outpost.store.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A SQLite database is a file its dialect creates, folder included, and it has no read replicas. */
class SqliteFileTest {

    @Test
    void theFileAndItsFolderAreCreatedInWalMode(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("not/yet/there/outpost.db");
        try (Database db = Database.open(DatabaseConfig.of("jdbc:sqlite:" + file));
             var c = db.readPool().getConnection(); var st = c.createStatement();
             var rs = st.executeQuery("PRAGMA journal_mode")) {
            assertThat(Files.isRegularFile(file)).isTrue();
            rs.next();
            assertThat(rs.getString(1)).isEqualToIgnoringCase("wal");
        }
    }

    @Test
    void aReplicaOfSqliteIsRefused(@TempDir Path dir) {
        DatabaseConfig file = DatabaseConfig.of("jdbc:sqlite:" + dir.resolve("outpost.db"));
        assertThatThrownBy(() -> Database.open(file, file, h -> { }))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("has no read replicas");
    }
}
