package io.outpost.frontier.answers;

import io.outpost.frontier.sql.PostgresFrontierDialect;
import io.outpost.frontier.encode.ColumnValues;
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
 * one prepared statement together and waits once. When no estimate is wanted, the query itself goes in the same
 * round trip ({@link #withQuery}). Only for a transaction in which nothing has run yet: PostgreSQL refuses SET
 * TRANSACTION after the first query.
 */
public final class PostgresPrelude {
    /**
     * @param read the tables' stamp and times
     * @param cost null when not asked for; empty when the planner gave none
     */
    public record Result(TableStamp read, OptionalDouble cost) {
        /** The tables' stamp, null if a table has no sequence row. */
        public String stamp() {
            return read.text();
        }
    }

    private PostgresPrelude() {
    }

    /**
     * The prelude and the query sent together, when no estimate is wanted: one round trip fewer. The query's rows
     * stream from {@link #rows} ({@code fetchSize} a round trip, pgjdbc keeps a cursor for the last statement);
     * the caller closes {@link #statement}.
     *
     * @param stamp as in {@link Result}
     */
    public record WithQuery(String stamp, PreparedStatement statement, ResultSet rows) {
    }

    /** Runs the prelude and then the query ({@code sql}, a single checked SELECT, with {@code binds}). */
    public static WithQuery withQuery(Connection c, Set<String> seqTables, String sql, List<String> binds,
                               int timeoutSeconds, int fetchSize) throws SQLException {
        PreparedStatement ps = c.prepareStatement(text(seqTables, timeoutSeconds) + "; " + sql);
        try {
            ColumnValues.textFormat(ps);
            ps.setFetchSize(fetchSize);
            for (int i = 0; i < binds.size(); i++) {
                ps.setObject(i + 1, binds.get(i), Types.OTHER);
            }
            List<String[]> stamps = new ArrayList<>();
            boolean isResultSet = ps.execute();
            while (isResultSet || ps.getUpdateCount() != -1) {
                if (isResultSet) {
                    ResultSet rs = ps.getResultSet();
                    if (stamps.size() == seqTables.size()) {
                        return new WithQuery(stamp(seqTables, stamps).text(), ps, rs);
                    }
                    try (rs) {
                        stamps.add(stampOf(rs));
                    }
                }
                isResultSet = ps.getMoreResults();
            }
            throw new SQLException("the query after the prelude gave no rows to read");
        } catch (SQLException | RuntimeException e) {
            ps.close();
            throw e;
        }
    }

    private static String text(Set<String> seqTables, int timeoutSeconds) {
        StringBuilder sql = new StringBuilder("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
        if (timeoutSeconds > 0) {
            // for this transaction's later statements too, so that they need no JDBC timeout (a timer task each)
            sql.append("; SET LOCAL statement_timeout = ").append(timeoutSeconds * 1000L);
        }
        for (String seq : seqTables) {
            sql.append("; SELECT CURRENT_VALUE, LASTMOD_DATE FROM ").append(seq);
        }
        return sql.toString();
    }

    /** One sequence row: its CURRENT_VALUE and LASTMOD_DATE, or null when there is none. */
    private static String[] stampOf(ResultSet rs) throws SQLException {
        return rs.next() ? new String[] {String.valueOf(rs.getLong(1)), rs.getString(2)} : null;
    }

    /** The stamp of all tables, in the same text as FrontierAnswers.read, so both find the same answers. */
    private static TableStamp stamp(Set<String> seqTables, List<String[]> rows) {
        StringBuilder stamp = new StringBuilder();
        List<String> modified = new ArrayList<>(rows.size());
        int i = 0;
        for (String seq : seqTables) {
            String[] row = rows.get(i++);
            if (row == null) {
                return TableStamp.MISSING;
            }
            modified.add(row[1]);
            stamp.append(seq).append('=').append(row[0]).append('@').append(row[1]).append(';');
        }
        return new TableStamp(stamp.toString(), modified);
    }

    /** Runs the prelude; {@code explainSql} null leaves the estimate out. */
    public static Result run(Connection c, Set<String> seqTables, String explainSql, List<String> binds, int timeoutSeconds)
            throws SQLException {
        StringBuilder sql = new StringBuilder(text(seqTables, timeoutSeconds));
        if (explainSql != null) {
            sql.append("; EXPLAIN (FORMAT JSON) ").append(explainSql);
        }
        try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
            if (explainSql != null) {
                for (int i = 0; i < binds.size(); i++) {
                    ps.setObject(i + 1, binds.get(i), Types.OTHER);
                }
            }
            List<String[]> stamps = new ArrayList<>();
            String plan = null;
            boolean isResultSet = ps.execute();
            while (isResultSet || ps.getUpdateCount() != -1) {
                if (isResultSet) {
                    try (ResultSet rs = ps.getResultSet()) {
                        if (stamps.size() < seqTables.size()) {
                            stamps.add(stampOf(rs));
                        } else if (rs.next()) {
                            plan = rs.getString(1);
                        }
                    }
                }
                isResultSet = ps.getMoreResults();
            }
            if (stamps.size() != seqTables.size()) {
                throw new SQLException("prelude gave " + stamps.size() + " stamps for " + seqTables.size() + " tables");
            }
            OptionalDouble cost = explainSql == null ? null
                    : plan == null ? OptionalDouble.empty() : PostgresFrontierDialect.totalCost(plan);
            return new Result(stamp(seqTables, stamps), cost);
        }
    }
}
