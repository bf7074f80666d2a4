package io.outpost.frontier;

import io.outpost.frontier.encode.BlobEncoder;
import io.outpost.frontier.encode.ColumnValues;
import io.outpost.frontier.encode.FetchSizing;
import io.outpost.frontier.sql.ColumnTypes;
import io.outpost.frontier.sql.DataDictionary;
import io.outpost.frontier.sql.MariaDbTypes;
import io.outpost.frontier.sql.SqlGuard;
import io.outpost.frontier.answers.PostgresPrelude;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.sql.Types;
import java.util.Locale;
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
    private final boolean postgres;
    private final boolean oracle;
    private final boolean sqlite;
    private final boolean mariaDb;
    /** SQLite's column types, read once per table (see {@link ColumnTypes}). */
    private final ColumnTypes sqliteTypes;

    DatabaseReads(FrontierContext context, SqlGuard.Target target, Keepalives keepalives) {
        this.context = context;
        this.config = context.config();
        this.keepalives = keepalives;
        this.postgres = target == SqlGuard.Target.POSTGRESQL;
        this.oracle = target == SqlGuard.Target.ORACLE;
        this.sqlite = target == SqlGuard.Target.SQLITE;
        this.mariaDb = target == SqlGuard.Target.MARIADB;
        this.sqliteTypes = new ColumnTypes(context.database().prefix());
    }

    /** Waits for a read-only connection, sending keepalives, for at most MaxDbAcquireSeconds. */
    Connection acquire(ResponseOutput out) throws FrontierException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(config.maxDbAcquireSeconds());
        try (Keepalives.Keepalive ka = keepalives.start(out, config.maxDbAcquireSeconds())) {
            while (true) {
                try {
                    Connection c = context.database().readPool().getConnection();
                    if (!c.isReadOnly() && !context.database().dialect().name().equals("sqlite")) {
                        c.setReadOnly(true);
                    }
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
            return runQuery(c, p, enc, out, postgres, timedByPrelude, sqlite);
        }
        // Oracle data-dictionary views: answered from a snapshot of this database's catalog (an in-memory SQLite)
        try (Connection snapshot = DataDictionary.snapshot(c, context.tables(), context.dictionaryOwner(),
                sqliteTypes)) {
            return runQuery(snapshot, p, enc, out, false, false, true);
        } finally {
            rollback(c);
        }
    }

    private int runQuery(Connection c, Payload p, BlobEncoder enc, ResponseOutput out, boolean untypedBinds,
                         boolean timedByPrelude, boolean onSqlite) throws SQLException, IOException {
        ResultSet rs;
        PreparedStatement ps;
        try (Keepalives.Keepalive ka = keepalives.start(out, config.maxDbExecuteSeconds())) {
            ps = mariaDb && !onSqlite ? MariaDbQueries.prepare(c, p.sql())
                    : c.prepareStatement(p.sql(), ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY);
            try {
                ColumnValues.textFormat(ps);
                ps.setFetchSize(FetchSizing.FIRST);
                if (config.statementTimeoutSeconds() > 0 && !timedByPrelude) { // a JDBC timeout costs a timer task
                    ps.setQueryTimeout(config.statementTimeoutSeconds());
                }
                for (int i = 0; i < p.binds().size(); i++) {
                    if (untypedBinds) {
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
        return readRows(c, ps, rs, enc, untypedBinds, onSqlite);
    }

    /** A PostgreSQL query sent together with its prelude ({@link PostgresPrelude#withQuery}): one round trip. */
    StampedRows queryWithPrelude(Connection c, Payload p, BlobEncoder enc, ResponseOutput out, Set<String> seqTables)
            throws SQLException, IOException {
        PostgresPrelude.WithQuery q;
        try (Keepalives.Keepalive ka = keepalives.start(out, config.maxDbExecuteSeconds())) {
            q = PostgresPrelude.withQuery(c, seqTables, p.sql(), p.binds(), config.statementTimeoutSeconds(),
                    FetchSizing.FIRST);
        }
        return new StampedRows(readRows(c, q.statement(), q.rows(), enc, true, false), q.stamp());
    }

    /** The column header and rows of {@code rs} into {@code enc}; closes both and rolls the transaction back. */
    private int readRows(Connection c, PreparedStatement ps, ResultSet rs, BlobEncoder enc, boolean untypedBinds,
                         boolean onSqlite) throws SQLException, IOException {
        try (ps; rs) {
            ResultSetMetaData md = rs.getMetaData();
            int n = md.getColumnCount();
            boolean[] binary = new boolean[n + 1];
            for (int i = 1; i <= n; i++) {
                String name;
                String type;
                if (oracle) {
                    name = md.getColumnName(i);
                    type = md.getColumnTypeName(i);
                    if ("NUMBER".equals(type) && md.getPrecision(i) != 0) {
                        type = type + "(" + md.getPrecision(i) + ")";
                    }
                    binary[i] = "BLOB".equals(md.getColumnTypeName(i));
                } else {
                    name = md.getColumnLabel(i);
                    if (name != null && name.equals(name.toLowerCase(Locale.ROOT))) {
                        name = name.toUpperCase(Locale.ROOT);
                    }
                    // SQLite's driver types a column by its first value: name it by the table's declared type
                    String declared = onSqlite ? sqliteTypes.sqliteAnswerType(c, md.getTableName(i), name,
                            md.getColumnTypeName(i)) : null;
                    int unsigned = mariaDb && !onSqlite && !md.isSigned(i)
                            ? MariaDbTypes.unsignedPrecision(md.getColumnType(i)) : 0;
                    type = unsigned > 0 ? "NUMBER(" + unsigned + ")"
                            : oracleTypeName(md.getColumnType(i), md.getPrecision(i), md.getColumnTypeName(i));
                    binary[i] = type.equals("BLOB");
                    type = declared != null ? declared : type;
                }
                enc.writeString(name);
                enc.writeString(type);
            }
            enc.writeEOR();
            int rows = 0;
            ColumnValues values = ColumnValues.of(rs, binary);
            while (rs.next()) {
                rows++;
                values.writeRow(rs, enc);
                enc.writeEOR();
                if (untypedBinds) { // PostgreSQL: fewer round trips for short rows
                    FetchSizing.afterRow(rs, rows, enc.fullSize());
                }
            }
            return rows;
        } finally {
            rollback(c);
        }
    }

    static void rollback(Connection c) {
        try {
            c.rollback();
        } catch (SQLException e) {
            LOG.debug("rollback failed: {}", e.toString());
        }
    }

    /** Oracle-style type names for PostgreSQL/MariaDB/SQLite columns, so clients converting by type name keep working. */
    static String oracleTypeName(int jdbcType, int precision, String nativeName) {
        return switch (jdbcType) {
            case Types.BIGINT -> "NUMBER(20)";
            case Types.INTEGER -> "NUMBER(10)";
            case Types.SMALLINT -> "NUMBER(5)"; // as the dictionary describes it (a C++ short for CORAL)
            case Types.TINYINT -> "NUMBER(3)";
            case Types.BIT, Types.BOOLEAN -> "NUMBER(1)";
            case Types.NUMERIC, Types.DECIMAL -> precision > 0 && precision <= 38 ? "NUMBER(" + precision + ")" : "NUMBER";
            case Types.REAL -> "BINARY_FLOAT";
            case Types.FLOAT, Types.DOUBLE -> "BINARY_DOUBLE";
            case Types.CHAR, Types.NCHAR -> "CHAR";
            case Types.VARCHAR, Types.NVARCHAR, Types.LONGVARCHAR, Types.LONGNVARCHAR, Types.CLOB, Types.NCLOB -> "VARCHAR2";
            case Types.BLOB, Types.BINARY, Types.VARBINARY, Types.LONGVARBINARY -> "BLOB";
            case Types.DATE -> "DATE";
            case Types.TIMESTAMP, Types.TIMESTAMP_WITH_TIMEZONE -> "TIMESTAMP";
            default -> nativeName == null ? "VARCHAR2" : nativeName.toUpperCase(Locale.ROOT);
        };
    }
}
