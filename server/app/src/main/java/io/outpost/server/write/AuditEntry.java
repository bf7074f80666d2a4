package io.outpost.server.write;

/**
 * One audited write attempt: who, what, where, how many rows, and how it ended (HTTP status and message).
 *
 * @param time      UTC, fixed-width ISO-8601 with microseconds, so text order is time order
 * @param requestId the client's {@code X-Request-Id}, or one the service made up
 */
public record AuditEntry(String id, String time, String requestId, String subject, String operation, String path,
                         String tag, Long rows, int status, String outcome) {
}
