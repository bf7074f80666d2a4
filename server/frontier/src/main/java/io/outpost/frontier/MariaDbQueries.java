package io.outpost.frontier;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A Frontier query on MariaDB runs as a server-side prepared statement, so its rows come in MariaDB's binary format.
 * In the text format MariaDB prints a FLOAT with six significant digits (3.40282e38 for 3.4028235e38), so a Float
 * payload would reach the client altered; in the binary format it is the stored four bytes, and the driver's text of
 * it (Java's shortest exact form) reads back as the same float, as PostgreSQL's does.
 */
final class MariaDbQueries {
    private MariaDbQueries() {
    }

    static PreparedStatement prepare(Connection c, String sql) throws SQLException {
        if (!c.isWrapperFor(org.mariadb.jdbc.Connection.class)) {
            return c.prepareStatement(sql, ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY);
        }
        // Connector/J's own entry for a prepared statement of a chosen protocol (true: binary, prepared on the server)
        return c.unwrap(org.mariadb.jdbc.Connection.class).prepareInternal(sql, Statement.NO_GENERATED_KEYS,
                ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY, true);
    }
}
