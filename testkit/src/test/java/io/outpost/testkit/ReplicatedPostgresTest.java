package io.outpost.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** A primary and its streaming replica: writes on the one are read on the other; close stops both and cleans up. */
class ReplicatedPostgresTest {
    @Test
    void replicaFollowsThePrimaryAndCloseRemovesEverything() throws Exception {
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        String replicaUrl;
        try (ReplicatedPostgres pg = new ReplicatedPostgres()) {
            pg.createDatabase("kit_replicated");
            replicaUrl = pg.replicaUrl("kit_replicated");
            try (Connection c = DriverManager.getConnection(pg.primaryUrl("kit_replicated"), "postgres", "");
                 Statement st = c.createStatement()) {
                st.execute("CREATE TABLE t (x int)");
                st.execute("INSERT INTO t VALUES (7)");
            }
            assertThat(readOnReplica(replicaUrl)).isEqualTo(7);
            try (Connection c = DriverManager.getConnection(replicaUrl, "postgres", "");
                 Statement st = c.createStatement()) {
                assertThatThrownBy(() -> st.execute("INSERT INTO t VALUES (8)")).as("a hot standby is read-only")
                        .isInstanceOf(SQLException.class);
            }
            assertThat(folders(tmp)).as("its folder while it runs").isNotEmpty();
        }
        assertThat(folders(tmp)).as("close deletes the folder").isEmpty();
        assertThatThrownBy(() -> DriverManager.getConnection(replicaUrl, "postgres", "").close())
                .as("close stops the servers").isInstanceOf(SQLException.class);
    }

    /** Bounded wait for the row to be replayed on the standby. */
    private static int readOnReplica(String url) throws SQLException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        try (Connection c = DriverManager.getConnection(url, "postgres", ""); Statement st = c.createStatement()) {
            while (true) {
                try (ResultSet rs = st.executeQuery("SELECT x FROM t")) {
                    if (rs.next()) {
                        return rs.getInt(1);
                    }
                } catch (SQLException e) {
                    if (System.nanoTime() > deadline) {
                        throw e; // the table never arrived
                    }
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("the row was not replicated within 30 s");
                }
            }
        }
    }

    private static java.util.List<Path> folders(Path tmp) throws Exception {
        String prefix = PostgresInstallation.PREFIX + ProcessHandle.current().pid() + "-replication-";
        try (Stream<Path> s = Files.list(tmp)) {
            return s.filter(p -> p.getFileName().toString().startsWith(prefix)).toList();
        }
    }
}
