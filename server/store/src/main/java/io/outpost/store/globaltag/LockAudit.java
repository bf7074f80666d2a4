package io.outpost.store.globaltag;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Clock;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.UUID;

/**
 * Records global-tag lock changes in the write audit (WRITE_AUDIT, the table the service's write API records into
 * and {@code GET /v1/write/audit} lists), in the transaction of the change, whichever tool made it.
 */
final class LockAudit {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'")
            .withZone(ZoneOffset.UTC);
    private static final int OUTCOME_MAX = 1000;

    private final String table;

    LockAudit(String prefix) {
        this.table = prefix + "WRITE_AUDIT";
    }

    void record(Connection c, Clock clock, String subject, String operation, String globalTag, long folders,
                String outcome) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + table + " (AUDIT_ID, AT_TIME, REQUEST_ID, "
                + "SUBJECT, OPERATION, NODE_PATH, TAG_NAME, ROW_COUNT, STATUS, OUTCOME) VALUES (?, ?, NULL, ?, ?, '/', ?,"
                + " ?, 200, ?)")) {
            ps.setString(1, UUID.randomUUID().toString());
            ps.setString(2, TIME.format(clock.instant()));
            ps.setString(3, subject);
            ps.setString(4, operation);
            ps.setString(5, globalTag);
            ps.setLong(6, folders);
            ps.setString(7, outcome.length() > OUTCOME_MAX ? outcome.substring(0, OUTCOME_MAX - 1) + "…" : outcome);
            ps.executeUpdate();
        }
    }
}
