package io.outpost.server.config;

import io.outpost.store.db.Database;
import java.sql.SQLException;

/**
 * Waits (bounded) until the read pool has replayed everything the primary has committed so far, as the database's
 * dialect compares the two positions ({@link io.outpost.store.db.Dialect#awaitReplica}): a PostgreSQL streaming
 * replica by WAL position, a MariaDB replica by binary-log GTID; a read pool on the primary itself, and a database
 * with nothing to compare, answer at once.
 */
public final class ReplicaReplay {
    private ReplicaReplay() {
    }

    /** True when the read side holds every commit made before the call; false when {@code waitMillis} ran out. */
    public static boolean await(Database db, long waitMillis) throws SQLException {
        return db.dialect().awaitReplica(db, waitMillis);
    }
}
