package io.outpost.testkit;

import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real MariaDB server for tests, from Debian's {@code mariadb-server} package (no Docker): one per JVM, started
 * on first use in a fresh data folder of the temporary directory, killed and its folder deleted at JVM exit; a
 * folder left by a killed JVM is removed by the next start (see {@link MariaDbProcess}). User {@code root}, no
 * password, reachable on 127.0.0.1 only.
 */
public final class MariaDbServer {
    private static MariaDbServer shared;
    private static final AtomicInteger DBS = new AtomicInteger();

    private final MariaDbProcess process;

    private MariaDbServer(MariaDbProcess process) {
        this.process = process;
    }

    /** The server shared by all tests of this JVM, started on first use. */
    public static synchronized MariaDbServer shared() {
        if (shared == null) {
            try {
                // InnoDB reads its files with O_DIRECT, so the buffer pool is all the cache it has (PostgreSQL's 256 MB
                // of shared buffers sit on the OS page cache): sized, as a site sizes it, to the working set of the
                // largest benchmarks (two 300 MB tables); its memory is touched only as pages fill
                shared = new MariaDbServer(MariaDbProcess.start("shared", List.of("--innodb-buffer-pool-size=1G")));
            } catch (IOException | InterruptedException e) {
                throw new IllegalStateException("cannot start the test MariaDB server: " + e.getMessage(), e);
            }
            Runtime.getRuntime().addShutdownHook(new Thread(shared.process::stopAndDelete, "test-mariadb-stop"));
        }
        return shared;
    }

    public int port() {
        return process.port();
    }

    /** The mariadbd process id (its connections are threads of this one process). */
    public long pid() {
        return process.pid();
    }

    public String url(String database) {
        return process.url(database);
    }

    /** A fresh, empty database (utf8mb4, binary collation) for one test class. */
    public String createDatabase(String prefix) {
        String name = (prefix + "_" + DBS.incrementAndGet()).toLowerCase();
        try (Connection c = DriverManager.getConnection(url(""), "root", "");
             Statement st = c.createStatement()) {
            st.execute("CREATE DATABASE " + name + " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin");
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create test database " + name + ": " + e.getMessage(), e);
        }
        return url(name);
    }
}
