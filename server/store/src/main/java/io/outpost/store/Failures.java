package io.outpost.store;

import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.sql.SQLTransientConnectionException;

/** Maps JDBC failures to store errors: constraint violations are conflicts, the rest is the database's fault. */
public final class Failures {
    private Failures() {
    }

    public static StoreException translate(SQLException e) {
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        if (state.startsWith("23") || (e.getMessage() != null && e.getMessage().contains("SQLITE_CONSTRAINT"))) {
            return new StoreException(StoreException.Kind.ALREADY_EXISTS, "the write conflicts with stored data: "
                    + e.getMessage(), e);
        }
        if (e instanceof SQLTimeoutException || state.equals("57014")) {
            return new StoreException(StoreException.Kind.DATABASE, "the query took longer than the statement timeout", e);
        }
        if (e instanceof SQLTransientConnectionException) {
            return new StoreException(StoreException.Kind.DATABASE, "no database connection free: " + e.getMessage(), e);
        }
        return new StoreException(StoreException.Kind.DATABASE, "database error: " + e.getMessage(), e);
    }
}
