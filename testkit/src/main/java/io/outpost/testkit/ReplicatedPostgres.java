package io.outpost.testkit;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Two real PostgreSQL servers: a primary and a streaming-replication hot standby of it, from the binaries on
 * Maven Central; the standby is made as pg_basebackup makes one ({@link PostgresInstallation#makeStandby}). Under
 * root both run as {@code nobody}.
 * {@link #close()} stops both and deletes their folder; so does JVM exit if the test did not close it, and a
 * folder left by a killed JVM is removed by the next start (see {@link PostgresInstallation}).
 */
public final class ReplicatedPostgres implements ReplicatedDatabase {
    private static final AtomicInteger INSTANCES = new AtomicInteger();
    /** Full-page writes stay on: a standby made from an online backup refuses WAL written without them. */
    private static final List<String> SETTINGS = List.of("max_connections=100", "shared_buffers=64MB",
            "wal_level=replica", "max_wal_senders=4");

    private final PostgresInstallation pg;
    private final int primaryPort;
    private final int replicaPort;
    private final List<Path> started = new ArrayList<>();
    private final Thread exitHook = new Thread(this::stopAndDelete, "test-postgres-replication-stop");

    public ReplicatedPostgres() throws IOException, InterruptedException, SQLException {
        pg = PostgresInstallation.create("replication-" + INSTANCES.incrementAndGet());
        Runtime.getRuntime().addShutdownHook(exitHook);
        try {
            primaryPort = PostgresInstallation.freePort();
            replicaPort = PostgresInstallation.freePort();
            Path primary = pg.base().resolve("primary");
            pg.initdb(primary);
            start(primary, primaryPort);
            Path replica = pg.base().resolve("replica");
            makeReplica(primary, replica);
            start(replica, replicaPort);
        } catch (IOException | InterruptedException | SQLException | RuntimeException e) {
            close();
            throw e;
        }
    }

    private void makeReplica(Path primary, Path replica) throws IOException, InterruptedException, SQLException {
        try (Connection c = DriverManager.getConnection(primaryUrl("postgres"), "postgres", "")) {
            pg.makeStandby(c, primary, replica, "outpost_replica", "127.0.0.1", primaryPort);
        }
    }

    private void start(Path data, int port) throws IOException, InterruptedException {
        started.add(data);
        pg.start(data, port, SETTINGS);
    }

    public String primaryUrl(String database) {
        return "jdbc:postgresql://127.0.0.1:" + primaryPort + "/" + database;
    }

    public String replicaUrl(String database) {
        return "jdbc:postgresql://127.0.0.1:" + replicaPort + "/" + database;
    }

    /** Creates a database on the primary and waits (bounded) until the replica has it too. */
    public void createDatabase(String name) throws SQLException {
        try (Connection c = DriverManager.getConnection(primaryUrl("postgres"), "postgres", "");
             Statement st = c.createStatement()) {
            st.execute("CREATE DATABASE " + name);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try (Connection c = DriverManager.getConnection(replicaUrl(name), "postgres", "")) {
                return;
            } catch (SQLException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
            }
        }
    }

    @Override
    public String user() {
        return "postgres";
    }

    /** WAL replay pauses: the replica keeps receiving the primary's WAL but applies nothing. */
    @Override
    public void pauseReplication() throws SQLException {
        onReplica("SELECT pg_wal_replay_pause()");
    }

    @Override
    public void resumeReplication() throws SQLException {
        onReplica("SELECT pg_wal_replay_resume()");
    }

    /** Runs one statement on the replica (e.g. pausing or resuming WAL replay). */
    public void onReplica(String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(replicaUrl("postgres"), "postgres", "");
             Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }

    /** Stops both servers (replica first) and deletes everything. */
    @Override
    public void close() {
        stopAndDelete();
        try {
            Runtime.getRuntime().removeShutdownHook(exitHook);
        } catch (IllegalStateException e) {
            // the JVM is already exiting: the hook runs anyway and finds nothing left to do
        }
    }

    private synchronized void stopAndDelete() {
        for (int i = started.size() - 1; i >= 0; i--) {
            pg.stopQuietly(started.get(i));
        }
        started.clear();
        pg.delete();
    }
}
