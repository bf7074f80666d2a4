package io.outpost.frontier;

import io.outpost.frontier.protocol.FrontierException;
import jakarta.servlet.http.HttpServletResponse;
import java.io.EOFException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientConnectionException;

/**
 * A request that cannot be answered because the database cannot be reached (connection refused or lost, no
 * pooled connection within the wait, a socket that stays silent), as opposed to a query the database refused.
 * Such a miss is answered with 503 + Retry-After and no-store, as the native API does: frontier_client treats a
 * 5xx as a server error and tries the next server at once, and no cache keeps the refusal. Errors that are the
 * client's fault (bad SQL, statement timeout of a costly query) stay payload errors.
 */
final class DatabaseUnavailable extends FrontierException {
    DatabaseUnavailable(String message, Throwable cause) {
        super(message, cause);
    }

    /** True if {@code e} (or a cause of it) says that the database could not be reached or stopped answering. */
    static boolean isOutage(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLTransientConnectionException || t instanceof SQLNonTransientConnectionException
                    || t instanceof SQLRecoverableException
                    || t instanceof SocketException || t instanceof SocketTimeoutException
                    || t instanceof EOFException) {
                return true;
            }
            if (t instanceof SQLException s && s.getSQLState() != null && outageState(s.getSQLState())) {
                return true;
            }
        }
        return false;
    }

    /**
     * True if {@code e} is an SQL error on a connection the pool has since closed: HikariCP closes a connection
     * whose link broke (state 08xxx) and answers any later use with a bare "Connection is closed" that has no state,
     * e.g. when an earlier statement of the same request met the broken link and its error was not fatal there.
     */
    static boolean lostConnection(Throwable e, java.sql.Connection c) {
        if (!(e instanceof SQLException) || c == null) {
            return false;
        }
        try {
            return c.isClosed();
        } catch (SQLException closed) {
            return true;
        }
    }

    /** SQL states 08xxx (connection exception) and PostgreSQL's 57P01-57P03 (server shutting down or starting). */
    private static boolean outageState(String state) {
        return state.startsWith("08") || state.equals("57P01") || state.equals("57P02") || state.equals("57P03");
    }

    /** Turns a not yet committed response into the 503 refusal; the body is the bare end tag, as upstream's 503. */
    static void refuse(HttpServletResponse resp) {
        resp.reset();
        resp.setStatus(HttpServletResponse.SC_SERVICE_UNAVAILABLE);
        resp.setContentType("text/xml");
        resp.setCharacterEncoding("US-ASCII");
        resp.setHeader("Cache-Control", "no-store");
        resp.setHeader("Retry-After", "1");
    }
}
