package io.outpost.server.write;

import io.outpost.store.IovStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import org.springframework.stereotype.Component;

/**
 * Answers of writes sent with an {@code Idempotency-Key}, per token subject. The key row is committed in the
 * write's own transaction, so a retry finds either the whole write and its answer, or neither; two identical
 * requests racing both try to insert the key and the primary key lets only one of them commit.
 */
@Component
public class IdempotencyKeys {
    /** A stored answer. */
    public record Stored(String requestHash, int status, String response) {
    }

    private final IovStore store;
    private final String table;

    public IdempotencyKeys(IovStore store) {
        this.store = store;
        this.table = store.database().prefix() + "IDEMPOTENCY_KEYS";
    }

    /** The answer stored for this key, read on the primary (a replica may not have it yet). */
    public Stored find(String subject, String key) {
        return store.write(c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT REQUEST_HASH, STATUS, RESPONSE FROM " + table
                    + " WHERE SUBJECT = ? AND IDEMPOTENCY_KEY = ?")) {
                ps.setString(1, subject);
                ps.setString(2, key);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? new Stored(rs.getString(1), rs.getInt(2), rs.getString(3)) : null;
                }
            }
        });
    }

    /** Stores the answer inside the write's transaction. */
    public void insert(Connection c, String subject, String key, String requestHash, int status, String response)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + table + " (SUBJECT, IDEMPOTENCY_KEY, "
                + "REQUEST_HASH, STATUS, RESPONSE, CREATED) VALUES (?, ?, ?, ?, ?, ?)")) {
            ps.setString(1, subject);
            ps.setString(2, key);
            ps.setString(3, requestHash);
            ps.setInt(4, status);
            ps.setString(5, response);
            ps.setString(6, AuditLog.TIME.format(Instant.now()));
            ps.executeUpdate();
        }
    }
}
