package io.outpost.frontier.sql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;

/**
 * MariaDB's estimate of a query's work, from its EXPLAIN: the rows it expects to examine. MariaDB 10 puts no cost in
 * its plans (11 does; MySQL's differs), and its {@code Last_query_cost} is 0 for anything with a sub-select, as
 * COOL's statements have, but every version gives each table read's expected rows. The rows of the tables one SELECT
 * joins multiply (a nested loop reads the inner table once per outer row); the SELECTs of a statement add up.
 */
final class MariaDbPlanCost {
    private MariaDbPlanCost() {
    }

    static OptionalDouble estimate(Connection c, String sql, List<String> binds, int timeoutSeconds)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("EXPLAIN " + sql)) {
            if (timeoutSeconds > 0) {
                ps.setQueryTimeout(timeoutSeconds);
            }
            for (int i = 0; i < binds.size(); i++) {
                ps.setString(i + 1, binds.get(i));
            }
            try (ResultSet rs = ps.executeQuery()) {
                Map<Long, Double> perSelect = new LinkedHashMap<>();
                while (rs.next()) {
                    long id = rs.getLong("id"); // 0 (null) for the row that merges a UNION's results
                    double rows = rs.getDouble("rows");
                    if (!rs.wasNull()) {
                        perSelect.merge(id, Math.max(rows, 1), (a, b) -> a * b);
                    }
                }
                return perSelect.isEmpty() ? OptionalDouble.of(1)
                        : OptionalDouble.of(perSelect.values().stream().mapToDouble(Double::doubleValue).sum());
            }
        }
    }
}
