package io.outpost.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The shared test MariaDB server, and the sweep of what a killed JVM left behind. */
class MariaDbServerTest {
    @Test
    void sharedServerGivesFreshUtf8mb4Databases() throws Exception {
        MariaDbServer m = MariaDbServer.shared();
        assertThat(MariaDbServer.shared()).as("one server per JVM").isSameAs(m);
        String first = m.createDatabase("kit");
        String second = m.createDatabase("kit");
        assertThat(first).isNotEqualTo(second).startsWith(m.url(""));
        try (Connection c = DriverManager.getConnection(first, "root", ""); Statement st = c.createStatement()) {
            st.execute("CREATE TABLE t (x VARCHAR(10))");
            st.execute("INSERT INTO t VALUES ('Ω😀')");
            try (ResultSet rs = st.executeQuery("SELECT x, @@version, ENGINE FROM t, information_schema.TABLES"
                    + " WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 't'")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1)).as("4-byte UTF-8 kept").isEqualTo("Ω😀");
                assertThat(rs.getString(3)).isEqualTo("InnoDB");
            }
        }
        assertThat(ProcessHandle.of(m.pid())).as("mariadbd runs").hasValueSatisfying(
                h -> assertThat(h.info().command().orElse("")).endsWith("mariadbd"));
    }

    /**
     * A JVM killed with SIGKILL runs no shutdown hook: its mariadbd keeps running and its folder stays. The next
     * start in any JVM kills that server and deletes the folder.
     */
    @Test
    void serverAndFolderOfAKilledJvmAreRemovedByTheNextStart() throws Exception {
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process child = new ProcessBuilder(java, "-Djava.io.tmpdir=" + tmp, "-cp",
                System.getProperty("java.class.path"), StartsAndWaits.class.getName())
                .redirectErrorStream(true).start();
        long server;
        try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            String line = out.readLine();
            while (line != null && !line.startsWith("mariadbd ")) {
                line = out.readLine(); // the driver's logging may speak first
            }
            assertThat(line).as("the child JVM reports its server").isNotNull().startsWith("mariadbd ");
            server = Long.parseLong(line.substring("mariadbd ".length()));
        } finally {
            child.destroyForcibly();
            assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
        }
        Path left = tmp.resolve(MariaDbProcess.PREFIX + child.pid() + "-shared");
        assertThat(left).as("the killed JVM's folder is left").exists();
        assertThat(ProcessHandle.of(server)).as("its server still runs").isPresent();

        MariaDbProcess.removeOrphans(tmp);

        assertThat(left).doesNotExist();
        ProcessHandle.of(server).ifPresent(h -> h.onExit().join());
        assertThat(ProcessHandle.of(server)).as("the orphaned server was stopped").isEmpty();
    }

    /** Starts the shared server, prints its pid, then waits to be killed. */
    public static final class StartsAndWaits {
        public static void main(String[] args) throws Exception {
            System.out.println("mariadbd " + MariaDbServer.shared().pid());
            System.out.flush();
            System.in.read(); // blocks until the parent kills this JVM
        }
    }
}
