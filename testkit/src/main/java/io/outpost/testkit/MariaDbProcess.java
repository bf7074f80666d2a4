package io.outpost.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * One test MariaDB server from Debian's {@code mariadb-server} package: {@code mariadb-install-db} into a fresh data
 * folder, then {@code mariadbd} on a free loopback port with its socket, pid file and temporary files inside its
 * own folder {@code outpost-mariadb-PID-NAME} of the temporary directory, named after the JVM that owns it. Under
 * root it runs as the unprivileged user {@code nobody}. No option file is read ({@code --no-defaults}), so the
 * machine's own MariaDB configuration never leaks in. A folder whose JVM is gone (killed before it could clean up)
 * is swept by the next {@link #start}: its server is killed and the folder deleted.
 */
final class MariaDbProcess {
    static final String PREFIX = "outpost-mariadb-";
    private static final boolean ROOT = "root".equals(System.getProperty("user.name"));
    /**
     * Test settings: no flush per commit (like fsync=off on PostgreSQL), utf8mb4 with binary collation. The redo log
     * is no smaller than a site's (MariaDB's default is 96 MB; PostgreSQL's test server keeps its 1 GB of WAL): at
     * 32 MB the bulk benchmarks' 10 MB batches forced a checkpoint every few batches.
     */
    private static final List<String> COMMON = List.of("--innodb-flush-log-at-trx-commit=0", "--innodb-doublewrite=0",
            "--innodb-log-file-size=256M", "--character-set-server=utf8mb4", "--collation-server=utf8mb4_bin",
            "--skip-name-resolve", "--max-connections=300");

    private final Path base;
    private final Path data;
    private final int port;
    private Process process;

    private MariaDbProcess(Path base, int port) {
        this.base = base;
        this.data = base.resolve("data");
        this.port = port;
    }

    /**
     * Sweeps orphaned folders, creates and starts a server with {@code settings} (mariadbd options) added to the test
     * defaults, and waits until it accepts connections. On failure everything is removed again.
     */
    static MariaDbProcess start(String name, List<String> settings) throws IOException, InterruptedException {
        if (!Files.isExecutable(Path.of("/usr/sbin/mariadbd"))) {
            throw new IOException("mariadbd is not installed: apt-get install mariadb-server (./outpost test does)");
        }
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        removeOrphans(tmp);
        MariaDbProcess m = new MariaDbProcess(tmp.resolve(PREFIX + ProcessHandle.current().pid() + "-" + name),
                PostgresInstallation.freePort());
        try {
            Files.createDirectories(m.base);
            if (ROOT) {
                run(List.of("chown", "nobody:nogroup", m.base.toString()));
            }
            List<String> install = new ArrayList<>(List.of("mariadb-install-db", "--no-defaults",
                    "--datadir=" + m.data, "--auth-root-authentication-method=normal", "--skip-test-db",
                    // its own temporary files in its own folder: the test run's TMPDIR is not the server user's
                    "--tmpdir=" + m.base));
            install.addAll(COMMON);
            runAsServerUser(install);
            m.launch(settings);
            return m;
        } catch (IOException | InterruptedException | RuntimeException e) {
            m.stopAndDelete();
            throw e;
        }
    }

    private void launch(List<String> settings) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        if (ROOT) {
            cmd.addAll(List.of("setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"));
        }
        cmd.addAll(List.of("/usr/sbin/mariadbd", "--no-defaults", "--datadir=" + data, "--port=" + port,
                "--bind-address=127.0.0.1", "--socket=" + base.resolve("mysqld.sock"),
                "--pid-file=" + base.resolve("mariadbd.pid"), "--tmpdir=" + base,
                "--log-error=" + base.resolve("error.log")));
        cmd.addAll(COMMON);
        cmd.addAll(settings);
        process = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(base.resolve("stdout.log").toFile()).start();
        awaitReady();
    }

    /** Polls (bounded) until a connection succeeds; a server that exits or never answers fails with its log. */
    private void awaitReady() throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        SQLException last = null;
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IOException("mariadbd exited with " + process.exitValue() + "\n" + errorLog());
            }
            try (Connection c = DriverManager.getConnection(url(""), "root", "")) {
                return;
            } catch (SQLException e) {
                last = e;
                process.waitFor(100, TimeUnit.MILLISECONDS); // returns at once if the server dies meanwhile
            }
        }
        throw new IOException("mariadbd did not accept connections within 60 s: " + last + "\n" + errorLog());
    }

    private String errorLog() {
        try {
            Path log = base.resolve("error.log");
            String said = Files.exists(log) ? Files.readString(log) : "(no error.log)";
            return said.substring(Math.max(0, said.length() - 4000));
        } catch (IOException e) {
            return "(error.log unreadable: " + e + ")";
        }
    }

    int port() {
        return port;
    }

    /** The server's process id (its pid file is written once it is up). */
    long pid() {
        return process.pid();
    }

    String url(String database) {
        return "jdbc:mariadb://127.0.0.1:" + port + "/" + database;
    }

    /** Kills the server at once (like PostgreSQL's immediate stop: its data goes with it) and deletes its folder. */
    synchronized void stopAndDelete() {
        if (process != null) {
            killAndWait(process.toHandle());
            process = null;
        }
        TempDirs.deleteQuietly(base);
    }

    private static void killAndWait(ProcessHandle p) {
        p.destroyForcibly();
        try {
            p.onExit().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            // best effort: the folder is deleted anyway, and a survivor is swept with it by the next start
        }
    }

    /** Deletes the folders of servers whose JVM is gone, after killing the server still running there. */
    static void removeOrphans(Path tmp) {
        try (var dirs = Files.newDirectoryStream(tmp, PREFIX + "*")) {
            for (Path dir : dirs) {
                String owner = dir.getFileName().toString().substring(PREFIX.length()).split("-", 2)[0];
                if (owner.matches("[0-9]{1,18}") && ProcessHandle.of(Long.parseLong(owner)).isEmpty()) {
                    orphanServer(dir).ifPresent(MariaDbProcess::killAndWait);
                    TempDirs.deleteQuietly(dir);
                }
            }
        } catch (IOException e) {
            // nothing to sweep
        }
    }

    /** The mariadbd named by the folder's pid file, if it still runs (a reused pid of another program is left). */
    private static Optional<ProcessHandle> orphanServer(Path dir) {
        try {
            long pid = Long.parseLong(Files.readString(dir.resolve("mariadbd.pid")).trim());
            return ProcessHandle.of(pid).filter(p -> p.info().command().orElse("").endsWith("mariadbd"));
        } catch (IOException | NumberFormatException e) {
            return Optional.empty();
        }
    }

    private static void runAsServerUser(List<String> cmd) throws IOException, InterruptedException {
        List<String> full = new ArrayList<>();
        if (ROOT) {
            full.addAll(List.of("setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"));
        }
        full.addAll(cmd);
        run(full);
    }

    private static void run(List<String> cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IOException(String.join(" ", cmd) + " failed: " + out);
        }
    }
}
