package io.outpost.frontier.sql;

import io.outpost.frontier.protocol.FrontierException;
import io.outpost.frontier.encode.ColumnValues;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.OptionalDouble;

/**
 * MariaDB (and MySQL): names in backticks and the other readings of {@link MariaDbSql}, the rows EXPLAIN expects to
 * examine as the cost ({@link MariaDbPlanCost}), queries in the binary protocol, unsigned columns named by their
 * digits.
 */
final class MariaDbFrontierDialect extends FrontierDialect {

    @Override
    Object rewrite(Object node) throws FrontierException {
        return MariaDbSql.rewrite(node);
    }

    @Override
    String identifier(String id) {
        return MariaDbSql.identifier(id);
    }

    @Override
    String castType(String oracleFunction) {
        return MariaDbSql.castType(oracleFunction);
    }

    @Override
    public OptionalDouble planCost(Connection c, String sql, List<String> binds, int timeoutSeconds)
            throws SQLException {
        return MariaDbPlanCost.estimate(c, sql, binds, timeoutSeconds);
    }

    /**
     * A server-side prepared statement, so the rows come in MariaDB's binary format. In the text format MariaDB
     * prints a FLOAT with six significant digits (3.40282e38 for 3.4028235e38), so a Float payload would reach the
     * client altered; in the binary format it is the stored four bytes, and the driver's text of it (Java's shortest
     * exact form) reads back as the same float, as PostgreSQL's does.
     */
    @Override
    public PreparedStatement prepareQuery(Connection c, String sql) throws SQLException {
        if (!c.isWrapperFor(org.mariadb.jdbc.Connection.class)) {
            return super.prepareQuery(c, sql);
        }
        // Connector/J's own entry for a prepared statement of a chosen protocol (true: binary, prepared on the server)
        return c.unwrap(org.mariadb.jdbc.Connection.class).prepareInternal(sql, Statement.NO_GENERATED_KEYS,
                ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY, true);
    }

    @Override
    public ColumnValues columnValues(ResultSet rs, boolean[] binary) throws SQLException {
        return ColumnValues.mariaDb(rs, binary);
    }

    /** Without the connection's own catalog, metadata lists every database's tables. */
    @Override
    boolean databasesAreCatalogs() {
        return true;
    }

    @Override
    String currentSchemaFunction() {
        return "database()";
    }

    @Override
    OracleType columnType(int jdbcType, String typeName, int size, int digits) {
        return MariaDbTypes.of(jdbcType, typeName, size, digits);
    }

    /** MariaDB names every primary key PRIMARY: Oracle's constraint names are unique per owner. */
    @Override
    String genericPrimaryKeyName() {
        return "PRIMARY";
    }

    @Override
    boolean indexesForeignKeys() {
        return true;
    }

    /** An unsigned column is a NUMBER of the digits its largest value has. */
    @Override
    public String typeName(ResultSetMetaData md, int i) throws SQLException {
        int unsigned = md.isSigned(i) ? 0 : MariaDbTypes.unsignedPrecision(md.getColumnType(i));
        return unsigned > 0 ? "NUMBER(" + unsigned + ")" : super.typeName(md, i);
    }
}
