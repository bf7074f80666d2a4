package io.outpost.server.write;

import io.outpost.store.IovStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * The WRITE_AUDIT table: an accepted write's row is committed in the write's own transaction; a refused
 * write's row in a transaction of its own after the refusal (the refused write itself changed nothing).
 */
@Component
public class AuditLog {
    private static final Logger log = LoggerFactory.getLogger(AuditLog.class);
    static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'")
            .withZone(ZoneOffset.UTC);
    private static final int MAX_OUTCOME = 1000;

    private final IovStore store;
    private final String table;
    private final Clock clock = Clock.systemUTC();

    public AuditLog(IovStore store) {
        this.store = store;
        this.table = store.database().prefix() + "WRITE_AUDIT";
    }

    public AuditEntry entry(String requestId, String subject, String operation, String path, String tag, Long rows,
                            int status, String outcome) {
        String text = outcome == null ? null : outcome.length() > MAX_OUTCOME ? outcome.substring(0, MAX_OUTCOME) + "…" : outcome;
        return new AuditEntry(UUID.randomUUID().toString(), TIME.format(Instant.now(clock)), requestId, subject,
                operation, path, tag, rows, status, text);
    }

    /** Inserts inside the caller's transaction. */
    public void insert(Connection c, AuditEntry e) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + table + " (AUDIT_ID, AT_TIME, REQUEST_ID, "
                + "SUBJECT, OPERATION, NODE_PATH, TAG_NAME, ROW_COUNT, STATUS, OUTCOME) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
            ps.setString(1, e.id());
            ps.setString(2, e.time());
            ps.setString(3, cut(e.requestId()));
            ps.setString(4, cut(e.subject()));
            ps.setString(5, cut(e.operation()));
            ps.setString(6, cut(e.path()));
            ps.setString(7, cut(e.tag()));
            if (e.rows() == null) {
                ps.setNull(8, Types.BIGINT);
            } else {
                ps.setLong(8, e.rows());
            }
            ps.setInt(9, e.status());
            ps.setString(10, e.outcome());
            ps.executeUpdate();
        }
    }

    /** Records a refusal in its own transaction; a failure to record is logged, never hides the refusal. */
    public void recordRefusal(AuditEntry e) {
        try {
            store.write(c -> {
                insert(c, e);
                return null;
            });
        } catch (RuntimeException failed) {
            log.warn("could not audit refused write {} {} by {}: {}", e.operation(), e.path(), e.subject(),
                    failed.getMessage());
        }
    }

    /** The newest entries first, at most {@code limit}, optionally only those at or after {@code since}. */
    public List<AuditEntry> list(int limit, Instant since) {
        return store.read(c -> {
            String sql = "SELECT AUDIT_ID, AT_TIME, REQUEST_ID, SUBJECT, OPERATION, NODE_PATH, TAG_NAME, ROW_COUNT, "
                    + "STATUS, OUTCOME FROM " + table + (since == null ? "" : " WHERE AT_TIME >= ?")
                    + " ORDER BY AT_TIME DESC, AUDIT_ID";
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                ps.setMaxRows(limit);
                if (since != null) {
                    ps.setString(1, TIME.format(since));
                }
                List<AuditEntry> out = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        long rows = rs.getLong(8);
                        Long boxed = rs.wasNull() ? null : rows;
                        out.add(new AuditEntry(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4),
                                rs.getString(5), rs.getString(6), rs.getString(7), boxed, rs.getInt(9), rs.getString(10)));
                    }
                }
                return out;
            }
        });
    }

    private static String cut(String s) {
        return s == null || s.length() <= 255 ? s : s.substring(0, 254) + "…";
    }
}
