package io.outpost.frontier.sql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.OptionalDouble;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Oracle: COOL's SQL runs as sent and the dictionary is its own; the cost comes from EXPLAIN PLAN / PLAN_TABLE, and
 * the columns are reported under their own names and types.
 */
final class OracleFrontierDialect extends FrontierDialect {
    private static final AtomicLong IDS = new AtomicLong();

    @Override
    public boolean runsCoolSqlAsSent() {
        return true;
    }

    /**
     * EXPLAIN PLAN writes into the session's PLAN_TABLE; the rows are removed again by the rollback. Empty with bind
     * variables, which EXPLAIN PLAN cannot take.
     */
    @Override
    public OptionalDouble planCost(Connection c, String sql, List<String> binds, int timeoutSeconds)
            throws SQLException {
        if (!binds.isEmpty()) {
            return OptionalDouble.empty();
        }
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

    @Override
    public String columnName(ResultSetMetaData md, int i) throws SQLException {
        return md.getColumnName(i);
    }

    @Override
    public String typeName(ResultSetMetaData md, int i) throws SQLException {
        String type = md.getColumnTypeName(i);
        return "NUMBER".equals(type) && md.getPrecision(i) != 0 ? type + "(" + md.getPrecision(i) + ")" : type;
    }
}
