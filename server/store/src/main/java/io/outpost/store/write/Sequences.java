package io.outpost.store.write;

import io.outpost.store.db.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/** COOL's sequence tables: one row, read FOR UPDATE and bumped, so ids are allocated under a row lock. */
final class Sequences {
    private Sequences() {
    }

    static long next(Connection c, Dialect dialect, String seqTable, String now) throws SQLException {
        long current;
        try (PreparedStatement ps = c.prepareStatement(dialect.lockSequenceSql(seqTable))) {
            ps.setString(1, seqTable);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new SQLException("sequence row of " + seqTable + " is missing");
                }
                current = rs.getLong(1);
            }
        }
        try (PreparedStatement ps = c.prepareStatement("UPDATE " + seqTable
                + " SET CURRENT_VALUE = ?, LASTMOD_DATE = ? WHERE SEQUENCE_NAME = ?")) {
            ps.setLong(1, current + 1);
            ps.setString(2, now);
            ps.setString(3, seqTable);
            ps.executeUpdate();
        }
        return current + 1;
    }
}
