package io.outpost.frontier.sql;

import io.outpost.frontier.encode.ColumnValues;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.List;
import java.util.OptionalDouble;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * PostgreSQL: CAST(.. AS INT) widened to BIGINT (its INT is 32 bits), the top plan node's total cost from
 * {@code EXPLAIN (FORMAT JSON)}, the stamp read by a prelude in the query's snapshot, binds typed by the server.
 */
public final class PostgresFrontierDialect extends FrontierDialect {
    private static final Pattern TOTAL_COST = Pattern.compile("\"Total Cost\"\\s*:\\s*([0-9.eE+-]+)");

    PostgresFrontierDialect() {
    }

    @Override
    boolean widensIntCasts() {
        return true;
    }

    @Override
    public OptionalDouble planCost(Connection c, String sql, List<String> binds, int timeoutSeconds)
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

    @Override
    public boolean stampsWithPrelude() {
        return true;
    }

    @Override
    public boolean bindsUntyped() {
        return true;
    }

    /** Fewer round trips for short rows. */
    @Override
    public boolean sizesFetchesByRows() {
        return true;
    }

    @Override
    public ColumnValues columnValues(ResultSet rs, boolean[] binary) throws SQLException {
        return ColumnValues.postgres(rs, binary);
    }
}
