package io.outpost.server.write;

import io.outpost.testkit.MariaDbServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;

/** The write-consistency tests (visibility, 8 concurrent writers, a service killed mid-batch) on MariaDB. */
class MariaDbWriteConsistencyTest extends WriteConsistencyTest {

    @Override
    String createDatabase() {
        return MariaDbServer.shared().createDatabase("write_consistency");
    }

    @Override
    String databaseUser() {
        return "root";
    }

    @Override
    boolean insertRunning() throws Exception {
        try (Connection c = DriverManager.getConnection(MariaDbServer.shared().url(""), "root", "");
             Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM information_schema.PROCESSLIST"
                     + " WHERE COMMAND <> 'Sleep' AND INFO LIKE 'INSERT INTO %IOVS%'")) {
            rs.next();
            return rs.getInt(1) > 0;
        }
    }
}
