package io.outpost.store.db;

import com.zaxxer.hikari.HikariConfig;
import java.time.Duration;

/**
 * Driver-level network timeouts of a pool, so that a database that stops answering without closing its
 * connections (a hung host, a network path that drops packets) cannot hold a pooled connection, and the request
 * waiting on it, forever. A statement timeout alone does not help there: its cancel request never arrives, and
 * the driver would wait for the answer as long as TCP keeps the dead connection open (many minutes).
 *
 * <p>The read pool's socket timeout is the statement timeout plus a margin: every read runs under the statement
 * timeout, so a read socket that stays silent longer belongs to a database that is gone; the driver then closes
 * the connection and HikariCP replaces it. Writes are not bounded by the statement timeout (a bulk load may run
 * longer), so the write pool gets no socket timeout, only the connect timeout. Settings given in the JDBC URL win.
 */
final class NetworkTimeouts {
    /** Time a database has, beyond the statement timeout, to deliver the cancellation's error. */
    static final Duration MARGIN = Duration.ofSeconds(5);

    private NetworkTimeouts() {
    }

    static void apply(HikariConfig h, Dialect dialect, DatabaseConfig config, boolean readPool) {
        long connectSeconds = Math.max(1, (config.connectionTimeout().toMillis() + 999) / 1000);
        Duration socket = config.statementTimeout().plus(MARGIN);
        dialect.networkTimeouts(h, connectSeconds, readPool ? socket : null);
        // a pooled connection found dead on borrow is given up after this long, well within the wait for one
        h.setValidationTimeout(Math.max(250, Math.min(5000, config.connectionTimeout().toMillis() / 2)));
    }
}
