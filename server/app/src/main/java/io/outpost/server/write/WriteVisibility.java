package io.outpost.server.write;

import io.outpost.server.cache.Catalog;
import io.outpost.server.config.ReplicaReplay;
import io.outpost.store.IovStore;
import java.sql.SQLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Makes a committed write visible on this service before its answer goes out: when the read pool is a
 * PostgreSQL streaming replica or a MariaDB GTID replica, waits (bounded) until the replica has applied the
 * primary's log up to the write; then refreshes the catalog, so folder generations, ETags and cached answers
 * move on at once. The catalog is read through the read pool, so a new generation is only ever paired with data
 * that contains the write: never a stale answer under a new generation.
 */
@Component
public class WriteVisibility {
    private static final Logger log = LoggerFactory.getLogger(WriteVisibility.class);

    private final IovStore store;
    private final Catalog catalog;
    private final long waitMillis;

    public WriteVisibility(IovStore store, Catalog catalog, WriteProperties props) {
        this.store = store;
        this.catalog = catalog;
        this.waitMillis = props.replicaWait().toMillis();
    }

    /** Returns false when the read side had not caught up within the configured wait (the write is stored). */
    public boolean afterWrite() {
        boolean caughtUp = true;
        try {
            caughtUp = awaitReplay();
        } catch (SQLException e) {
            log.warn("cannot compare the replica's replay position with the primary's: {}", e.getMessage());
        }
        catalog.refresh();
        return caughtUp;
    }

    private boolean awaitReplay() throws SQLException {
        boolean done = ReplicaReplay.await(store.database(), waitMillis);
        if (!done) {
            log.warn("the read replica has not replayed the write within {} ms", waitMillis);
        }
        return done;
    }
}
