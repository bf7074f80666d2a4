package io.outpost.frontier;

import io.outpost.frontier.answers.PostgresPrelude;
import io.outpost.frontier.encode.BlobEncoder;
import io.outpost.frontier.encode.ColumnValues;
import io.outpost.frontier.encode.FetchSizing;
import io.outpost.frontier.protocol.FrontierConfig;
import io.outpost.frontier.protocol.FrontierException;
import io.outpost.frontier.sql.ColumnTypes;
import io.outpost.frontier.sql.DataDictionary;
import io.outpost.frontier.sql.FrontierDialect;
import io.outpost.frontier.sql.FrontierDialects;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.sql.Types;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The database work of a payload: waiting for a read-only connection, running the checked query (with keepalives
 * while it starts) and streaming its column header and rows into the encoder, then ending the transaction.
 */
final class DatabaseReads {
    private static final Logger LOG = LoggerFactory.getLogger(DatabaseReads.class);

    /** The rows a query gave, and the tables' stamp read in its snapshot (null if a table has no sequence row). */
    record StampedRows(int rows, String stamp) {
    }

    private final FrontierContext context;
    private final FrontierConfig config;
    private final Keepalives keepalives;
    private final FrontierDialect dialect;
    /** SQLite's column types, read once per table (see {@link ColumnTypes}). */
    private final ColumnTypes sqliteTypes;

    DatabaseReads(FrontierContext context, FrontierDialect dialect, Keepalives keepalives) {
        this.context = context;
        this.config = context.config();
        this.keepalives = keepalives;
        this.dialect = dialect;
        this.sqliteTypes = new ColumnTypes(context.database().prefix());
    }

    /** Waits for a read-only connection, sending keepalives, for at most MaxDbAcquireSeconds. */
    Connection acquire(ResponseOutput out) throws FrontierException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(config.maxDbAcquireSeconds());
        try (Keepalives.Keepalive ka = keepalives.start(out, config.maxDbAcquireSeconds())) {
            while (true) {
                try {
                    Connection c = context.database().readPool().getConnection();
                    dialect.readOnly(c);
                    return c;
                } catch (SQLTransientConnectionException e) {
                    if (e.getCause() != null) {
                        // the pool could not connect at all (database down or unreachable): waiting longer for a
                        // free connection cannot help, so the client hears it now and can try another server
                        // (the driver's words, which name hosts, go to the log only: PayloadEnds.keptOrRefused)
                        throw new DatabaseUnavailable("Error acquiring DB connection: database unreachable", e);
                    }
                    if (System.nanoTime() >= deadline) {
                        throw new DatabaseUnavailable("Timed out waiting to acquire DB connection", e);
                    }
                } catch (SQLException e) {
                    if (DatabaseUnavailable.isOutage(e)) {
                        throw new DatabaseUnavailable("Error acquiring DB connection: database unreachable", e);
                    }
                    // the database's words reach the log only (OpenPayloadStep)
                    throw new FrontierException("Acquiring a DB connection", e);
                }
            }
        }
    }

    /**
     * Runs the payload's query into {@code enc}.
     *
     * @param timedByPrelude the transaction's statement timeout was set by {@link PostgresPrelude}
     */
    int query(Connection c, Payload p, BlobEncoder enc, ResponseOutput out, boolean timedByPrelude)
            throws SQLException, IOException {
        if (!p.dictionary()) {
            return runQuery(c, p, enc, out, dialect, timedByPrelude);
        }
        // Oracle data-dictionary views: answered from a snapshot of this database's catalog (an in-memory SQLite)
        try (Connection snapshot = DataDictionary.snapshot(c, dialect, context.tables(), context.dictionaryOwner(),
                sqliteTypes)) {
            return runQuery(snapshot, p, enc, out, FrontierDialects.SQLITE, false);
        } finally {
            rollback(c);
        }
    }

    /** Runs the query on {@code c}, a connection to a database of dialect {@code on}. */
    private int runQuery(Connection c, Payload p, BlobEncoder enc, ResponseOutput out, FrontierDialect on,
                         boolean timedByPrelude) throws SQLException, IOException {
        ResultSet rs;
        PreparedStatement ps;
        try (Keepalives.Keepalive ka = keepalives.start(out, config.maxDbExecuteSeconds())) {
            ps = on.prepareQuery(c, p.sql());
            try {
                ColumnValues.textFormat(ps);
                ps.setFetchSize(FetchSizing.FIRST);
                if (config.statementTimeoutSeconds() > 0 && !timedByPrelude) { // a JDBC timeout costs a timer task
                    ps.setQueryTimeout(config.statementTimeoutSeconds());
                }
                for (int i = 0; i < p.binds().size(); i++) {
                    if (on.bindsUntyped()) {
                        ps.setObject(i + 1, p.binds().get(i), Types.OTHER);
                    } else {
                        ps.setString(i + 1, p.binds().get(i));
                    }
                }
                rs = ps.executeQuery();
            } catch (SQLException | RuntimeException e) {
                ps.close();
                throw e;
            }
        }
        return readRows(c, ps, rs, enc, on);
    }

    /** A PostgreSQL query sent together with its prelude ({@link PostgresPrelude#withQuery}): one round trip. */
    StampedRows queryWithPrelude(Connection c, Payload p, BlobEncoder enc, ResponseOutput out, Set<String> seqTables)
            throws SQLException, IOException {
        PostgresPrelude.WithQuery q;
        try (Keepalives.Keepalive ka = keepalives.start(out, config.maxDbExecuteSeconds())) {
            q = PostgresPrelude.withQuery(c, seqTables, p.sql(), p.binds(), config.statementTimeoutSeconds(),
                    FetchSizing.FIRST);
        }
        return new StampedRows(readRows(c, q.statement(), q.rows(), enc, dialect), q.stamp());
    }

    /** The column header and rows of {@code rs} into {@code enc}; closes both and rolls the transaction back. */
    private int readRows(Connection c, PreparedStatement ps, ResultSet rs, BlobEncoder enc, FrontierDialect on)
            throws SQLException, IOException {
        try (ps; rs) {
            ResultSetMetaData md = rs.getMetaData();
            int n = md.getColumnCount();
            boolean[] binary = new boolean[n + 1];
            for (int i = 1; i <= n; i++) {
                String name = on.columnName(md, i);
                String type = on.typeName(md, i);
                binary[i] = type.equals("BLOB");
                if (on.typesColumnsByValue()) {
                    // the driver types a column by its first value: name it by the table's declared type
                    String declared = sqliteTypes.sqliteAnswerType(c, md.getTableName(i), name, md.getColumnTypeName(i));
                    type = declared != null ? declared : type;
                }
                enc.writeString(name);
                enc.writeString(type);
            }
            enc.writeEOR();
            int rows = 0;
            ColumnValues values = on.columnValues(rs, binary);
            while (rs.next()) {
                rows++;
                values.writeRow(rs, enc);
                enc.writeEOR();
                if (on.sizesFetchesByRows()) {
                    FetchSizing.afterRow(rs, rows, enc.fullSize());
                }
            }
            return rows;
        } finally {
            rollback(c);
        }
    }

    /**
     * The column header the payload's query answers with (names and types, alternating), as {@link #readRows}
     * writes it, read from the query's result description (at most one row is fetched).
     */
    java.util.List<String> header(Connection c, Payload p) throws SQLException {
        try (PreparedStatement ps = dialect.prepareQuery(c, p.sql())) {
            ColumnValues.textFormat(ps);
            ps.setMaxRows(1);
            if (config.statementTimeoutSeconds() > 0) {
                ps.setQueryTimeout(config.statementTimeoutSeconds());
            }
            try (ResultSet rs = ps.executeQuery()) {
                ResultSetMetaData md = rs.getMetaData();
                java.util.List<String> out = new java.util.ArrayList<>();
                for (int i = 1; i <= md.getColumnCount(); i++) {
                    String name = dialect.columnName(md, i);
                    String type = dialect.typeName(md, i);
                    if (dialect.typesColumnsByValue()) {
                        String declared = sqliteTypes.sqliteAnswerType(c, md.getTableName(i), name,
                                md.getColumnTypeName(i));
                        type = declared != null ? declared : type;
                    }
                    out.add(name);
                    out.add(type);
                }
                return out;
            }
        }
    }

    static void rollback(Connection c) {
        try {
            c.rollback();
        } catch (SQLException e) {
            LOG.debug("rollback failed: {}", e.toString());
        }
    }
}
