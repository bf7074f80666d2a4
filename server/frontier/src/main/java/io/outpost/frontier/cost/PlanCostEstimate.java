package io.outpost.frontier.cost;

import io.outpost.frontier.sql.SqlGuard;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.List;
import java.util.OptionalDouble;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The database's own estimate of what a query will cost, before it runs: the top plan node's total cost from
 * EXPLAIN on PostgreSQL, and from EXPLAIN PLAN / PLAN_TABLE on Oracle; on MariaDB the rows its EXPLAIN expects to
 * examine ({@link MariaDbPlanCost}). SQLite gives no cost, so it is empty there.
 */
public final class PlanCostEstimate {
    private static final Pattern TOTAL_COST = Pattern.compile("\"Total Cost\"\\s*:\\s*([0-9.eE+-]+)");
    private static final AtomicLong IDS = new AtomicLong();

    private final SqlGuard.Target target;

    PlanCostEstimate(SqlGuard.Target target) {
        this.target = target;
    }

    /** The estimated cost, or empty when this database cannot tell (SQLite; Oracle with bind variables). */
    OptionalDouble estimate(Connection c, String sql, List<String> binds, int timeoutSeconds) throws SQLException {
        return switch (target) {
            case POSTGRESQL -> postgres(c, sql, binds, timeoutSeconds);
            case ORACLE -> binds.isEmpty() ? oracle(c, sql, timeoutSeconds) : OptionalDouble.empty();
            case MARIADB -> MariaDbPlanCost.estimate(c, sql, binds, timeoutSeconds);
            case SQLITE -> OptionalDouble.empty();
        };
    }

    private static OptionalDouble postgres(Connection c, String sql, List<String> binds, int timeoutSeconds)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("EXPLAIN (FORMAT JSON) " + sql)) {
            if (timeoutSeconds > 0) {
                ps.setQueryTimeout(timeoutSeconds);
            }
            for (int i = 0; i < binds.size(); i++) {
                ps.setObject(i + 1, binds.get(i), Types.OTHER);
            }
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    return totalCost(rs.getString(1));
                }
            }
        }
        return OptionalDouble.empty();
    }

    /** The top plan node's total cost from PostgreSQL's {@code EXPLAIN (FORMAT JSON)}. */
    public static OptionalDouble totalCost(String jsonPlan) {
        Matcher m = TOTAL_COST.matcher(jsonPlan);
        return m.find() ? OptionalDouble.of(Double.parseDouble(m.group(1))) : OptionalDouble.empty();
    }

    /** EXPLAIN PLAN writes into the session's PLAN_TABLE; the rows are removed again by the rollback. */
    private static OptionalDouble oracle(Connection c, String sql, int timeoutSeconds) throws SQLException {
        String id = "outpost-cost-" + IDS.incrementAndGet();
        try (Statement st = c.createStatement()) {
            if (timeoutSeconds > 0) {
                st.setQueryTimeout(timeoutSeconds);
            }
            st.execute("EXPLAIN PLAN SET STATEMENT_ID = '" + id + "' FOR " + sql);
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT COST FROM PLAN_TABLE WHERE STATEMENT_ID = ? AND ID = 0")) {
                ps.setString(1, id);
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        double cost = rs.getDouble(1);
                        return rs.wasNull() ? OptionalDouble.empty() : OptionalDouble.of(cost);
                    }
                }
            }
        } finally {
            c.rollback();
        }
        return OptionalDouble.empty();
    }
}
