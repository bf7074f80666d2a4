package io.outpost.server.config;

import io.outpost.store.db.Database;
import io.outpost.store.db.MariaDbDialect;
import io.outpost.store.db.PostgresDialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Waits (bounded) until the read pool has replayed everything the primary has committed so far: a PostgreSQL
 * streaming replica compares its replay position with the primary's current WAL position; a read pool on the
 * primary itself answers at once. A MariaDB replica waits with {@code MASTER_GTID_WAIT} for the primary's binary-log
 * GTID position. Other databases have nothing to wait for.
 */
public final class ReplicaReplay {
    private ReplicaReplay() {
    }

    /** True when the read side holds every commit made before the call; false when {@code waitMillis} ran out. */
    public static boolean await(Database db, long waitMillis) throws SQLException {
        if (db.dialect() instanceof MariaDbDialect) {
            return awaitGtid(db, waitMillis);
        }
        if (!(db.dialect() instanceof PostgresDialect)) {
            return true;
        }
        String lsn;
        try (Connection c = db.writePool().getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT pg_current_wal_lsn()::text")) {
            rs.next();
            lsn = rs.getString(1);
            c.rollback();
        }
        long deadline = System.nanoTime() + waitMillis * 1_000_000L;
        long pause = 1;
        try (Connection c = db.readPool().getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT NOT pg_is_in_recovery() OR "
                     + "COALESCE(pg_last_wal_replay_lsn() >= ?::pg_lsn, false)")) {
            ps.setString(1, lsn);
            while (true) {
                boolean done;
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    done = rs.getBoolean(1);
                }
                c.rollback();
                if (done) {
                    return true;
                }
                if (System.nanoTime() > deadline) {
                    return false;
                }
                try {
                    Thread.sleep(pause);   // polling the replica's position: PostgreSQL has no replay notification
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
                pause = Math.min(50, pause * 2);
            }
        }
    }

    /** MariaDB: the replica's SQL thread waits for the primary's binary-log position, no polling needed. */
    private static boolean awaitGtid(Database db, long waitMillis) throws SQLException {
        if (db.readConfig() == db.config()) {
            return true; // reads go to the primary itself
        }
        String position;
        try (Connection c = db.writePool().getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT @@gtid_binlog_pos")) {
            rs.next();
            position = rs.getString(1);
            c.rollback();
        }
        try (Connection c = db.readPool().getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT MASTER_GTID_WAIT(?, ?)")) {
            ps.setString(1, position);
            ps.setDouble(2, waitMillis / 1000.0);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                boolean done = rs.getInt(1) == 0;
                c.rollback();
                return done;
            }
        }
    }
}
