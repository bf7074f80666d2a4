package io.outpost.server.support;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import javax.sql.DataSource;

/**
 * Every row of every conditions table as text, in a stable order, to prove a refused write changed nothing.
 * The write API's own bookkeeping (audit, idempotency keys) is left out: recording a refusal is its job.
 */
public final class DatabaseDump {
    private DatabaseDump() {
    }

    public static String of(DataSource ds) throws SQLException {
        try (Connection c = ds.getConnection()) {
            List<String> tables = new ArrayList<>();
            DatabaseMetaData md = c.getMetaData();
            try (ResultSet rs = md.getTables(null, null, "%", new String[] {"TABLE"})) {
                while (rs.next()) {
                    String t = rs.getString("TABLE_NAME").toUpperCase();
                    if (t.startsWith("OUTPOST_") && !t.contains("SCHEMA_HISTORY") && !t.endsWith("WRITE_AUDIT")
                            && !t.endsWith("IDEMPOTENCY_KEYS")) {
                        tables.add(t);
                    }
                }
            }
            tables.sort(String::compareTo);
            StringBuilder b = new StringBuilder();
            for (String t : tables) {
                b.append("== ").append(t).append('\n');
                List<String> rows = new ArrayList<>();
                try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT * FROM " + t)) {
                    int n = rs.getMetaData().getColumnCount();
                    while (rs.next()) {
                        StringBuilder r = new StringBuilder();
                        for (int i = 1; i <= n; i++) {
                            Object v = rs.getObject(i);
                            r.append(v instanceof byte[] bytes ? Arrays.toString(bytes) : String.valueOf(v)).append('|');
                        }
                        rows.add(r.toString());
                    }
                }
                rows.sort(String::compareTo);
                rows.forEach(r -> b.append(r).append('\n'));
            }
            c.rollback();
            return b.toString();
        }
    }
}
