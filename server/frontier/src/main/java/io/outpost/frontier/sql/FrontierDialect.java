package io.outpost.frontier.sql;

import io.outpost.frontier.protocol.FrontierException;
import io.outpost.frontier.encode.ColumnValues;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Types;
import java.util.List;
import java.util.Locale;
import java.util.OptionalDouble;
import java.util.regex.Pattern;

/**
 * What the Frontier endpoint does differently per database: how COOL's Oracle SQL is translated, how the database
 * estimates a query's cost, whether the stamp can come with a prelude in the query's snapshot, how a query is
 * prepared and its rows read, and the Oracle type names its columns are reported under. One implementation per
 * database, obtained once from the store's dialect by {@link FrontierDialects#of}; code outside these classes asks
 * the dialect what to do, never which database it is. The defaults are those of a database that takes the
 * translated SQL as standard SQL.
 */
public abstract class FrontierDialect {
    /** A quoted name that means the same unquoted. */
    private static final Pattern SIMPLE_UPPER = Pattern.compile("\"[A-Z_][A-Z0-9_$#]*\"");

    FrontierDialect() {
    }

    /**
     * Whether COOL's Oracle SQL runs as sent, untranslated, and its data-dictionary views are the database's own
     * (Oracle); otherwise it is translated ({@link CoolSqlTranslation}) and the views answered by
     * {@link DataDictionary}.
     */
    public boolean runsCoolSqlAsSent() {
        return false;
    }

    // ---- translation rules, applied by CoolSqlTranslation

    /** This database's own form of {@code node}, before the common rules, or null to leave it to them. */
    Object rewrite(Object node) throws FrontierException {
        return null;
    }

    /** A name as this database must read it to mean what Oracle reads: quoted upper-case names unquoted. */
    String identifier(String id) {
        if (id != null && SIMPLE_UPPER.matcher(id).matches()) {
            return id.substring(1, id.length() - 1);
        }
        return id;
    }

    /**
     * The SQL type {@code TO_CHAR(x)}, {@code TO_NUMBER(x)} and {@code TO_TIMESTAMP(x)} cast to, or null where the
     * argument is kept as it is.
     */
    String castType(String oracleFunction) {
        return switch (oracleFunction) {
            case "TO_CHAR" -> "TEXT";
            case "TO_NUMBER" -> "NUMERIC";
            case "TO_TIMESTAMP" -> "TIMESTAMP";
            default -> throw new IllegalArgumentException(oracleFunction);
        };
    }

    /** Whether {@code CAST(.. AS INT)} must become a 64-bit cast (Oracle's INT is NUMBER(38)). */
    boolean widensIntCasts() {
        return false;
    }

    /** Whether TO_CHAR with a format can be passed on. */
    boolean formatsToChar() {
        return true;
    }

    // ---- cost and stamp

    /** The database's estimate of what {@code sql} will cost, before it runs; empty when it cannot tell. */
    public OptionalDouble planCost(Connection c, String sql, List<String> binds, int timeoutSeconds)
            throws SQLException {
        return OptionalDouble.empty();
    }

    /**
     * Whether the tables' stamp (and the cost estimate) can be read by a prelude in the query's own snapshot
     * ({@link io.outpost.frontier.answers.PostgresPrelude}), or even sent with the query in one round trip.
     */
    public boolean stampsWithPrelude() {
        return false;
    }

    // ---- running the query and reading its rows

    /** Makes a pooled read connection refuse writes, where the pool has not done so already. */
    public void readOnly(Connection c) throws SQLException {
        if (!c.isReadOnly()) {
            c.setReadOnly(true);
        }
    }

    /** The statement a payload's query runs as. */
    public PreparedStatement prepareQuery(Connection c, String sql) throws SQLException {
        return c.prepareStatement(sql, ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY);
    }

    /** Whether the binds go out untyped, for the server to infer their types from the statement. */
    public boolean bindsUntyped() {
        return false;
    }

    /** Whether the fetch size follows the rows' length ({@link io.outpost.frontier.encode.FetchSizing#afterRow}). */
    public boolean sizesFetchesByRows() {
        return false;
    }

    /** How the rows' values are read from this driver. */
    public ColumnValues columnValues(ResultSet rs, boolean[] binary) throws SQLException {
        return ColumnValues.strings(rs, binary);
    }

    /**
     * Whether the driver types a column by its first value, so that the answer must name the type the table declares
     * (see {@link ColumnTypes}).
     */
    public boolean typesColumnsByValue() {
        return false;
    }

    // ---- the catalog, as AdmittedSchema reads it for the data-dictionary views

    /** Whether the catalog is kept as the CREATE statements themselves (SQLite's sqlite_master), not in tables. */
    boolean keepsCatalogAsDdl() {
        return false;
    }

    /** Whether the database's databases are JDBC catalogs (MariaDB), not schemas. */
    boolean databasesAreCatalogs() {
        return false;
    }

    /** The SQL function naming the connection's schema, for information_schema queries. */
    String currentSchemaFunction() {
        return "current_schema()";
    }

    /** The Oracle type of a column as JDBC metadata describes it. */
    OracleType columnType(int jdbcType, String typeName, int size, int digits) {
        return OracleType.of(jdbcType, typeName, size, digits);
    }

    /** The name every primary key gets unless named otherwise (not a name of its own), or null. */
    String genericPrimaryKeyName() {
        return null;
    }

    /** Whether the database indexes a foreign key's columns itself, under the key's name (Oracle does not). */
    boolean indexesForeignKeys() {
        return false;
    }

    // ---- type names

    /** The name of column {@code i} in the answer's header: upper-case as Oracle folds it. */
    public String columnName(ResultSetMetaData md, int i) throws SQLException {
        String name = md.getColumnLabel(i);
        return name != null && name.equals(name.toLowerCase(Locale.ROOT)) ? name.toUpperCase(Locale.ROOT) : name;
    }

    /** The Oracle type name of column {@code i}, so clients converting by type name keep working. */
    public String typeName(ResultSetMetaData md, int i) throws SQLException {
        return oracleTypeName(md.getColumnType(i), md.getPrecision(i), md.getColumnTypeName(i));
    }

    /** Oracle-style type names for PostgreSQL/MariaDB/SQLite columns, by JDBC type. */
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
