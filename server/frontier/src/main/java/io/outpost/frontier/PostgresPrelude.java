package io.outpost.frontier;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;
import java.util.Set;

/**
 * What a PostgreSQL query needs before it runs, in one round trip instead of three: the transaction's snapshot fixed
 * at REPEATABLE READ, the tables' stamp read in that snapshot, and (when wanted) the planner's cost estimate. The
 * query then reads the same snapshot as the stamp, so its answer is the data at that stamp by construction and the
 * stamp need not be read again afterwards to keep the answer. The statement timeout is set for the whole
 * transaction ({@code SET LOCAL}), so the statements that follow need no JDBC timeout. pgjdbc sends the statements of
 * one prepared statement together and waits once. Only for a transaction in which nothing has run yet: PostgreSQL
 * refuses SET TRANSACTION after the first query.
 */
final class PostgresPrelude {
    /**
     * @param stamp the tables' stamp, null if a table has no sequence row
     * @param cost  null when not asked for; empty when the planner gave none
     */
    record Result(String stamp, OptionalDouble cost) {
    }

    private PostgresPrelude() {
    }

    /** Runs the prelude; {@code explainSql} null leaves the estimate out. */
    static Result run(Connection c, Set<String> seqTables, String explainSql, List<String> binds, int timeoutSeconds)
            throws SQLException {
        StringBuilder sql = new StringBuilder("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
        if (timeoutSeconds > 0) {
            // for this transaction's later statements too, so that they need no JDBC timeout (a timer task each)
            sql.append("; SET LOCAL statement_timeout = ").append(timeoutSeconds * 1000L);
        }
        for (String seq : seqTables) {
            sql.append("; SELECT CURRENT_VALUE, LASTMOD_DATE FROM ").append(seq);
        }
        if (explainSql != null) {
            sql.append("; EXPLAIN (FORMAT JSON) ").append(explainSql);
        }
        try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
            if (explainSql != null) {
                for (int i = 0; i < binds.size(); i++) {
                    ps.setObject(i + 1, binds.get(i), Types.OTHER);
                }
            }
            List<String> stamps = new ArrayList<>();
            String plan = null;
            boolean isResultSet = ps.execute();
            while (isResultSet || ps.getUpdateCount() != -1) {
                if (isResultSet) {
                    try (ResultSet rs = ps.getResultSet()) {
                        boolean row = rs.next();
                        if (stamps.size() < seqTables.size()) {
                            // the same text as FrontierAnswers.stamp, so that both find the same kept answers
                            stamps.add(row ? rs.getLong(1) + "@" + rs.getString(2) : null);
                        } else if (row) {
                            plan = rs.getString(1);
                        }
                    }
                }
                isResultSet = ps.getMoreResults();
            }
            if (stamps.size() != seqTables.size()) {
                throw new SQLException("prelude gave " + stamps.size() + " stamps for " + seqTables.size() + " tables");
            }
            StringBuilder stamp = new StringBuilder();
            int i = 0;
            for (String seq : seqTables) {
                String s = stamps.get(i++);
                if (s == null) {
                    stamp = null;
                    break;
                }
                stamp.append(seq).append('=').append(s).append(';');
            }
            OptionalDouble cost = explainSql == null ? null
                    : plan == null ? OptionalDouble.empty() : PlanCostEstimate.totalCost(plan);
            return new Result(stamp == null ? null : stamp.toString(), cost);
        }
    }
}
