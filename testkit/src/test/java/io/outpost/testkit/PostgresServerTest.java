package io.outpost.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The shared test server, and the sweep of what a killed JVM left behind. */
class PostgresServerTest {
    @Test
    void sharedServerGivesFreshDatabases() throws Exception {
        PostgresServer pg = PostgresServer.shared();
        assertThat(PostgresServer.shared()).as("one server per JVM").isSameAs(pg);
        String first = pg.createDatabase("kit");
        String second = pg.createDatabase("kit");
        assertThat(first).isNotEqualTo(second).startsWith(pg.url(""));
        try (Connection c = DriverManager.getConnection(first, "postgres", ""); Statement st = c.createStatement()) {
            st.execute("CREATE TABLE t (x int)");
            st.execute("INSERT INTO t VALUES (42)");
            try (ResultSet rs = st.executeQuery("SELECT x FROM t")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getInt(1)).isEqualTo(42);
            }
        }
        assertThat(ProcessHandle.of(pg.pid())).as("the postmaster runs").hasValueSatisfying(
                h -> assertThat(h.isAlive()).isTrue());
    }

    /**
     * A JVM killed with SIGKILL runs no shutdown hook: its server keeps running and its folder stays. The next start
     * in any JVM stops that server and deletes the folder.
     */
    @Test
    void serverAndFolderOfAKilledJvmAreRemovedByTheNextStart() throws Exception {
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process child = new ProcessBuilder(java, "-Djava.io.tmpdir=" + tmp, "-cp",
                System.getProperty("java.class.path"), StartsAndWaits.class.getName())
                .redirectErrorStream(true).start();
        long postmaster;
        try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            String line = out.readLine();
            assertThat(line).as("the child JVM reports its server").isNotNull().startsWith("postmaster ");
            postmaster = Long.parseLong(line.substring("postmaster ".length()));
        } finally {
            child.destroyForcibly();
            assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
        }
        Path left = tmp.resolve(PostgresInstallation.PREFIX + child.pid());
        assertThat(left).as("the killed JVM's folder is left").exists();
        assertThat(ProcessHandle.of(postmaster)).as("its server still runs").isPresent();

        PostgresInstallation.removeOrphans(tmp);

        assertThat(left).doesNotExist();
        ProcessHandle.of(postmaster).ifPresent(h -> h.onExit().join());
        assertThat(ProcessHandle.of(postmaster)).as("the orphaned server was stopped").isEmpty();
    }

    /** Starts the shared server, prints its postmaster's pid, then waits to be killed. */
    public static final class StartsAndWaits {
        public static void main(String[] args) throws Exception {
            System.out.println("postmaster " + PostgresServer.shared().pid());
            System.out.flush();
            System.in.read(); // blocks until the parent kills this JVM
        }
    }

    @Test
    void removeOrphansKeepsFoldersOfLiveJvms() throws Exception {
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        Path mine = Files.createDirectories(tmp.resolve(PostgresInstallation.PREFIX + ProcessHandle.current().pid()
                + "-kept-" + System.nanoTime()));
        try {
            PostgresInstallation.removeOrphans(tmp);
            assertThat(mine).as("a live JVM's folder").exists();
        } finally {
            TempDirs.delete(mine);
        }
    }
}
