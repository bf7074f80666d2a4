package io.outpost.loadtest.grid;

import io.outpost.testkit.PostgresInstallation;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A PostgreSQL primary and its streaming replica on two grid hosts, from the test kit's embedded binaries, each
 * server a child process in its host's namespace (so a fault can kill it). The replica is made as the test kit
 * makes its own ({@link PostgresInstallation#makeStandby}) and follows the primary through a replication slot.
 */
final class GridPostgres implements AutoCloseable {
    static final int PORT = 5432;
    static final String DATABASE = "conditions";
    private static final List<String> SETTINGS = List.of("fsync=off", "max_connections=200", "shared_buffers=64MB",
            "wal_level=replica", "max_wal_senders=4", "hot_standby=on");

    private final GridNetwork net;
    private final GridNetwork.Host primaryHost;
    private final GridNetwork.Host replicaHost;
    private final Path logs;
    private final PostgresInstallation pg;
    private final Path primary;
    private final Path replica;
    private Process replicaProcess;

    GridPostgres(GridNetwork net, GridNetwork.Host primaryHost, GridNetwork.Host replicaHost, Path logs)
            throws IOException, InterruptedException, SQLException {
        this.net = net;
        this.primaryHost = primaryHost;
        this.replicaHost = replicaHost;
        this.logs = logs;
        this.pg = PostgresInstallation.create("grid");
        this.primary = pg.base().resolve("primary");
        this.replica = pg.base().resolve("replica");
        try {
            pg.initdb(primary);
            Files.writeString(primary.resolve("pg_hba.conf"), "host all all 198.18.0.0/24 trust\n"
                    + "host replication all 198.18.0.0/24 trust\n", StandardOpenOption.APPEND);
            start(primaryHost, primary);
            awaitAccepting(url(primaryHost, "postgres"));
            try (Connection c = connect(url(primaryHost, "postgres")); Statement st = c.createStatement()) {
                st.execute("CREATE DATABASE " + DATABASE);
            }
            makeReplica();
            replicaProcess = start(replicaHost, replica);
            awaitAccepting(url(replicaHost, DATABASE));
        } catch (IOException | InterruptedException | SQLException | RuntimeException e) {
            close();
            throw e;
        }
    }

    static String url(GridNetwork.Host h, String database) {
        return "jdbc:postgresql://" + h.address() + ":" + PORT + "/" + database;
    }

    String primaryUrl() {
        return url(primaryHost, DATABASE);
    }

    String replicaUrl() {
        return url(replicaHost, DATABASE);
    }

    private Process start(GridNetwork.Host h, Path data) {
        List<String> cmd = new ArrayList<>(List.of("setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
                pg.binary("postgres").toString(), "-D", data.toString(), "-p", Integer.toString(PORT), "-k", "",
                "-c", "listen_addresses=" + h.address())); // TCP only: no socket file whose path could be too long
        for (String s : SETTINGS) {
            cmd.addAll(List.of("-c", s));
        }
        return net.start(h, cmd, logs.resolve("postgres-" + h.name() + ".log"));
    }

    private void makeReplica() throws IOException, InterruptedException, SQLException {
        try (Connection c = connect(url(primaryHost, "postgres"))) {
            pg.makeStandby(c, primary, replica, "grid_replica", primaryHost.address(), PORT);
        }
    }

    /** Fault: the replica stops replaying WAL (it still answers, with older data). */
    void pauseReplay() throws SQLException {
        try (Connection c = connect(replicaUrl()); Statement st = c.createStatement()) {
            st.execute("SELECT pg_wal_replay_pause()");
        }
    }

    /** Fault: the replica's server is killed (SIGKILL), as a crashed host. */
    void killReplica() throws InterruptedException {
        replicaProcess.destroyForcibly();
        replicaProcess.waitFor(30, TimeUnit.SECONDS);
    }

    /**
     * Starts the replica again (it recovers and catches up through its slot). Right after a kill the old server's
     * backends may still hold its shared memory (they exit when they notice, later on a loaded machine): the new
     * server then exits at once ("pre-existing shared memory block is still in use"), so it is started again until
     * it accepts connections, for up to 90 s. Without this the rolling restart left the replica down.
     */
    void restartReplica() throws SQLException, InterruptedException {
        if (replicaProcess.isAlive()) {
            return;
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (true) {
            replicaProcess = start(replicaHost, replica);
            try {
                awaitAccepting(replicaUrl(), replicaProcess, deadline);
                return;
            } catch (SQLException e) {
                if (replicaProcess.isAlive() || System.nanoTime() > deadline) {
                    throw e;
                }
            }
            TimeUnit.MILLISECONDS.sleep(500); // the old backends exit on their own: a pause before starting again
        }
    }

    static Connection connect(String url) throws SQLException {
        return DriverManager.getConnection(url, "postgres", "");
    }

    private static void awaitAccepting(String url) throws SQLException, InterruptedException {
        awaitAccepting(url, null, System.nanoTime() + TimeUnit.SECONDS.toNanos(90));
    }

    /** Until the server at {@code url} accepts a connection; fails at the deadline or when {@code server} exits. */
    private static void awaitAccepting(String url, Process server, long deadlineNanos)
            throws SQLException, InterruptedException {
        while (true) {
            try (Connection c = connect(url)) {
                return;
            } catch (SQLException e) {
                if (System.nanoTime() > deadlineNanos || (server != null && !server.isAlive())) {
                    throw e;
                }
                // a server process we do not own the event loop of: a short pause between connection attempts
                TimeUnit.MILLISECONDS.sleep(200);
            }
        }
    }

    /** The servers die with the network's processes; this deletes their data. */
    @Override
    public void close() {
        for (Path data : List.of(replica, primary)) {
            if (Files.exists(data.resolve("postmaster.pid"))) {
                try {
                    PostgresInstallation.runAsServerUser(List.of(pg.binary("pg_ctl").toString(), "-D", data.toString(),
                            "-m", "immediate", "-w", "stop"));
                } catch (IOException | InterruptedException e) {
                    // already gone
                }
            }
        }
        pg.delete();
    }
}
