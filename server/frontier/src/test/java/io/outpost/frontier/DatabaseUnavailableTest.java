package io.outpost.frontier;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.frontier.protocol.FrontierException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientConnectionException;
import org.junit.jupiter.api.Test;

/** Which failures mean "the database cannot be reached" (503) and which are the request's own (payload error). */
class DatabaseUnavailableTest {

    @Test
    void connectionFailuresPoolTimeoutsAndSilentSocketsAreOutages() {
        assertThat(DatabaseUnavailable.isOutage(new SQLException("An I/O error occurred while sending to the backend",
                "08006", new SocketTimeoutException("Read timed out")))).isTrue();
        assertThat(DatabaseUnavailable.isOutage(new SQLException("Connection refused", "08001"))).isTrue();
        assertThat(DatabaseUnavailable.isOutage(new SQLTransientConnectionException(
                "pool - Connection is not available, request timed out after 1000ms"))).isTrue();
        assertThat(DatabaseUnavailable.isOutage(new SQLRecoverableException("IO Error: Connection reset"))).isTrue();
        assertThat(DatabaseUnavailable.isOutage(new SQLException("terminating connection due to administrator command",
                "57P01"))).isTrue();
        assertThat(DatabaseUnavailable.isOutage(new RuntimeException(new ConnectException("Connection refused"))))
                .as("found in the cause chain").isTrue();
        assertThat(DatabaseUnavailable.isOutage(new DatabaseUnavailable("Timed out waiting to acquire DB connection",
                new SQLTransientConnectionException("timeout")))).isTrue();
    }

    @Test
    void sqlTheDatabaseRefusesAndCancelledCostlyQueriesAreNot() {
        assertThat(DatabaseUnavailable.isOutage(new SQLException("syntax error at or near \"FROM\"", "42601"))).isFalse();
        assertThat(DatabaseUnavailable.isOutage(new SQLException("canceling statement due to statement timeout",
                "57014"))).isFalse();
        assertThat(DatabaseUnavailable.isOutage(new SQLException("relation \"X\" does not exist", "42P01"))).isFalse();
        assertThat(DatabaseUnavailable.isOutage(new SQLException("[SQLITE_BUSY] database is locked"))).isFalse();
        assertThat(DatabaseUnavailable.isOutage(new FrontierException("SQL rejected: not a SELECT"))).isFalse();
    }

    @Test
    void anSqlErrorOnAConnectionThePoolClosedIsALostConnection() throws Exception {
        // HikariCP's answer to any use of a connection it closed after a broken link: no SQL state
        SQLException closedByPool = new SQLException("Connection is closed");
        assertThat(DatabaseUnavailable.isOutage(closedByPool)).isFalse();
        try (java.sql.Connection open = java.sql.DriverManager.getConnection("jdbc:sqlite::memory:")) {
            assertThat(DatabaseUnavailable.lostConnection(closedByPool, open)).as("connection still open").isFalse();
            open.close();
            assertThat(DatabaseUnavailable.lostConnection(closedByPool, open)).isTrue();
            assertThat(DatabaseUnavailable.lostConnection(new FrontierException("SQL rejected: not a SELECT"), open))
                    .as("not an SQL error").isFalse();
        }
        assertThat(DatabaseUnavailable.lostConnection(closedByPool, null)).as("no connection yet").isFalse();
    }
}
