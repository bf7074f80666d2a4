package io.outpost.testkit;

import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Two real MariaDB servers from Debian's {@code mariadb-server}: a primary writing a binary log, and a read-only
 * replica following it by GTID ({@code MASTER_USE_GTID=slave_pos}). Both start from fresh, identical data folders,
 * so the replica needs no copy of the primary: it applies the primary's binary log from its first event.
 * {@link #close()} kills both and deletes their folders; so does JVM exit if the test did not close it, and folders
 * left by a killed JVM are removed by the next start (see {@link MariaDbProcess}).
 */
public final class ReplicatedMariaDb implements ReplicatedDatabase {
    private static final AtomicInteger INSTANCES = new AtomicInteger();

    private final MariaDbProcess primary;
    private final MariaDbProcess replica;
    private final Thread exitHook = new Thread(this::stopAndDelete, "test-mariadb-replication-stop");

    public ReplicatedMariaDb() throws IOException, InterruptedException, SQLException {
        String name = "replication-" + INSTANCES.incrementAndGet();
        primary = MariaDbProcess.start(name + "-primary", List.of("--server-id=1", "--log-bin=binlog",
                "--binlog-format=ROW", "--innodb-buffer-pool-size=64M"));
        MariaDbProcess r = null;
        try {
            r = MariaDbProcess.start(name + "-replica", List.of("--server-id=2", "--read-only=1",
                    "--innodb-buffer-pool-size=64M"));
            replica = r;
            Runtime.getRuntime().addShutdownHook(exitHook);
            onReplica("CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=" + primary.port()
                    + ", MASTER_USER='root', MASTER_PASSWORD='', MASTER_USE_GTID=slave_pos");
            onReplica("START SLAVE");
        } catch (IOException | InterruptedException | SQLException | RuntimeException e) {
            primary.stopAndDelete();
            if (r != null) {
                r.stopAndDelete();
            }
            throw e;
        }
    }

    public String primaryUrl(String database) {
        return primary.url(database);
    }

    public String replicaUrl(String database) {
        return replica.url(database);
    }

    /** Creates a database (utf8mb4, binary collation) on the primary and waits (bounded) until the replica has it. */
    public void createDatabase(String name) throws SQLException {
        try (Connection c = DriverManager.getConnection(primaryUrl(""), "root", "");
             Statement st = c.createStatement()) {
            st.execute("CREATE DATABASE " + name + " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin");
        }
        if (!awaitReplica(30)) {
            throw new SQLException("the replica did not apply CREATE DATABASE " + name + " within 30 s");
        }
    }

    /** Waits up to {@code seconds} until the replica has applied everything the primary has committed. */
    public boolean awaitReplica(int seconds) throws SQLException {
        String position;
        try (Connection c = DriverManager.getConnection(primaryUrl(""), "root", "");
             Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT @@gtid_binlog_pos")) {
            rs.next();
            position = rs.getString(1);
        }
        try (Connection c = DriverManager.getConnection(replicaUrl(""), "root", "");
             var ps = c.prepareStatement("SELECT MASTER_GTID_WAIT(?, ?)")) {
            ps.setString(1, position);
            ps.setInt(2, seconds);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1) == 0;
            }
        }
    }

    @Override
    public String user() {
        return "root";
    }

    /** The replica's SQL thread stops: it keeps receiving the binary log but applies nothing. */
    @Override
    public void pauseReplication() throws SQLException {
        onReplica("STOP SLAVE SQL_THREAD");
    }

    @Override
    public void resumeReplication() throws SQLException {
        onReplica("START SLAVE");
    }

    /** Runs one statement on the replica (e.g. {@code STOP SLAVE SQL_THREAD}, {@code START SLAVE}). */
    public void onReplica(String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(replicaUrl(""), "root", "");
             Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }

    /** Kills both servers (replica first) and deletes everything. */
    @Override
    public void close() {
        stopAndDelete();
        try {
            Runtime.getRuntime().removeShutdownHook(exitHook);
        } catch (IllegalStateException e) {
            // the JVM is already exiting: the hook runs anyway and finds nothing left to do
        }
    }

    private void stopAndDelete() {
        replica.stopAndDelete();
        primary.stopAndDelete();
    }
}
