package io.outpost.store.write;

import io.outpost.store.db.Dialect;
import io.outpost.store.model.Node;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The per-folder writer lock and object-id allocator, as in COOL: the folder's sequence row is read FOR UPDATE
 * (SQLite: the transaction holds the database write lock), so writers of one folder run one at a time and the
 * in-memory checks they make stay true until they commit.
 */
final class FolderLock {
    private final Connection c;
    private final Node folder;
    private long next;

    private FolderLock(Connection c, Node folder, long current) {
        this.c = c;
        this.folder = folder;
        this.next = current + 1;
    }

    static FolderLock acquire(Connection c, Dialect dialect, Node folder) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(dialect.lockSequenceSql(folder.iovSeqTable()))) {
            ps.setString(1, folder.iovSeqTable());
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new SQLException("sequence row of " + folder.iovSeqTable() + " is missing");
                }
                return new FolderLock(c, folder, rs.getLong(1));
            }
        }
    }

    /** The next object id; id 0 is reserved, the first is 1. */
    long nextId() {
        return next++;
    }

    /** Writes the last allocated id and the modification time: this is also the folder's cache generation. */
    void release(String now) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE " + folder.iovSeqTable()
                + " SET CURRENT_VALUE = ?, LASTMOD_DATE = ? WHERE SEQUENCE_NAME = ?")) {
            ps.setLong(1, next - 1);
            ps.setString(2, now);
            ps.setString(3, folder.iovSeqTable());
            ps.executeUpdate();
        }
    }
}
