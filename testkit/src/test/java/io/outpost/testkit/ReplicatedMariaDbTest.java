package io.outpost.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/** The GTID replica follows the primary, stops applying when told, catches up when resumed. */
class ReplicatedMariaDbTest {
    @Test
    void replicaFollowsStopsAndCatchesUp() throws Exception {
        try (ReplicatedMariaDb m = new ReplicatedMariaDb()) {
            m.createDatabase("r");
            try (Connection p = DriverManager.getConnection(m.primaryUrl("r"), "root", "");
                 Statement st = p.createStatement()) {
                st.execute("CREATE TABLE t (x INT PRIMARY KEY) ENGINE=InnoDB");
                st.execute("INSERT INTO t VALUES (1)");
                assertThat(m.awaitReplica(30)).isTrue();
                assertThat(rows(m)).isEqualTo(1);

                m.onReplica("STOP SLAVE SQL_THREAD");
                st.execute("INSERT INTO t VALUES (2)");
                assertThat(m.awaitReplica(1)).as("not applied while stopped").isFalse();
                assertThat(rows(m)).isEqualTo(1);

                m.onReplica("START SLAVE");
                assertThat(m.awaitReplica(30)).isTrue();
                assertThat(rows(m)).isEqualTo(2);
            }
        }
    }

    private static int rows(ReplicatedMariaDb m) throws Exception {
        try (Connection c = DriverManager.getConnection(m.replicaUrl("r"), "root", "");
             Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM t")) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
