package io.outpost.frontier.sql;

import io.outpost.store.db.PostgresDialect;
import io.outpost.store.model.Node;
import io.outpost.store.read.Metadata;
import io.outpost.store.schema.SchemaManager;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Oracle types of a SQLite database's columns, the same in the data dictionary and in query answers.
 *
 * <p>SQLite declares every integer {@code INTEGER} and every float {@code REAL}, and its driver reports a column's type
 * from the value in the first row, so a 64-bit key could be described as NUMBER(10) (CORAL then reads it into a
 * 32-bit int) and a Float as BINARY_DOUBLE. The types here do not depend on the data: COOL's tables get the types the
 * same table has on PostgreSQL (the global tables as the PostgreSQL migration declares them, a folder's tables as
 * {@link SchemaManager#folderDdl} declares them there, from the folder's payload specification), so a context
 * describes its columns the same on both backends; any other integer column is NUMBER(20) and any other float
 * BINARY_DOUBLE, which hold every value SQLite can store. A table's types are read once: they never change.
 */
public final class ColumnTypes {
    private static final String GLOBAL_DDL = "/db/migration/postgresql/V1__global_tables.sql";
    private static final Pattern FOLDER_TABLE = Pattern.compile("(.*F[0-9]{4})_(IOVS|CHANNELS|IOVS_SEQ|IOV2TAG)");

    private final String prefix;
    /** Upper-case table -> upper-case column -> COOL's type; empty for tables that are not COOL's. */
    private final Map<String, Map<String, OracleType>> cool = new ConcurrentHashMap<>();
    private final Map<String, Map<String, OracleType>> global;

    /** @param prefix the COOL table prefix of the database (e.g. {@code OUTPOST_}) */
    public ColumnTypes(String prefix) {
        this.prefix = prefix.toUpperCase(Locale.ROOT);
        this.global = globalTables(this.prefix);
    }

    /** A SQLite column's type for the dictionary, from its table, name and JDBC catalog entry. */
    OracleType sqlite(Connection c, String table, String column, int jdbcType, String declared, int size, int digits)
            throws SQLException {
        OracleType known = coolTable(c, table).get(column);
        if (known != null) {
            return known;
        }
        OracleType byAffinity = byAffinity(declared);
        return byAffinity != null ? byAffinity : OracleType.of(jdbcType, declared, size, digits);
    }

    /**
     * The type name a SQLite answer's column carries, or null to name it by its JDBC type: the column's own type when
     * it reads a table column unchanged, else by the declared (or value) type's affinity.
     */
    public String sqliteAnswerType(Connection c, String table, String label, String declared) throws SQLException {
        OracleType t = null;
        if (table != null && !table.isEmpty() && label != null) {
            t = coolTable(c, table.toUpperCase(Locale.ROOT)).get(label.toUpperCase(Locale.ROOT));
        }
        if (t == null) {
            t = byAffinity(declared);
        }
        if (t == null) {
            return null;
        }
        return switch (t.name()) {
            case "NUMBER" -> t.precision() == null ? "NUMBER" : "NUMBER(" + t.precision() + ")";
            case "BINARY_FLOAT", "BINARY_DOUBLE" -> t.name();
            default -> null;
        };
    }

    /** Numeric types by SQLite's affinity rules: any "INT" is an integer of up to 64 bits, REAL/FLOA/DOUB a double. */
    private static OracleType byAffinity(String declared) {
        String d = declared == null ? "" : declared.toUpperCase(Locale.ROOT);
        if (d.equals("BOOLEAN")) {
            return OracleType.number(1, 0);
        }
        if (d.contains("INT")) {
            return OracleType.number(20, 0);
        }
        if (d.contains("REAL") || d.contains("FLOA") || d.contains("DOUB")) {
            return OracleType.binaryDouble();
        }
        return null;
    }

    private Map<String, OracleType> coolTable(Connection c, String table) throws SQLException {
        Map<String, OracleType> g = global.get(table);
        if (g != null) {
            return g;
        }
        Map<String, OracleType> known = cool.get(table);
        if (known == null) {
            known = folderTable(c, table);
            cool.putIfAbsent(table, known);
        }
        return known;
    }

    /** A folder table's types, from its folder's payload specification; empty if the table is no folder's. */
    private Map<String, OracleType> folderTable(Connection c, String table) throws SQLException {
        Matcher m = FOLDER_TABLE.matcher(table);
        if (!table.startsWith(prefix) || !m.matches()) {
            return Map.of();
        }
        String path = null;
        try (PreparedStatement ps = c.prepareStatement("SELECT NODE_FULLPATH FROM " + prefix
                + "NODES WHERE UPPER(FOLDER_IOVTABLENAME) = ?")) {
            ps.setString(1, m.group(1) + "_IOVS");
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    path = rs.getString(1);
                }
            }
        }
        Node folder = path == null ? null : new Metadata(prefix).findNode(c, path);
        if (folder == null || !folder.isFolder()) {
            return Map.of();
        }
        for (String ddl : SchemaManager.folderDdl(new PostgresDialect(), folder)) {
            TableDeclaration t = TableDeclaration.parse(ddl);
            if (t != null && t.table().equals(table)) {
                return columns(t);
            }
        }
        return Map.of();
    }

    private static Map<String, Map<String, OracleType>> globalTables(String prefix) {
        String text;
        try (InputStream in = ColumnTypes.class.getResourceAsStream(GLOBAL_DDL)) {
            if (in == null) {
                throw new IllegalStateException("missing " + GLOBAL_DDL + " on the class path");
            }
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8).replace("${prefix}", prefix);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + GLOBAL_DDL, e);
        }
        Map<String, Map<String, OracleType>> out = new HashMap<>();
        for (String statement : text.replaceAll("(?m)^--.*$", "").split(";")) {
            TableDeclaration t = TableDeclaration.parse(statement);
            if (t != null) {
                out.put(t.table(), columns(t));
            }
        }
        return Map.copyOf(out);
    }

    private static Map<String, OracleType> columns(TableDeclaration t) {
        Map<String, OracleType> out = new HashMap<>();
        for (String[] c : t.columns()) {
            out.put(c[0], ofPostgres(c[1]));
        }
        return Map.copyOf(out);
    }

    /** A PostgreSQL declared type ({@code VARCHAR(255)}) in Oracle's terms, as {@link OracleType#of} names its catalog. */
    private static OracleType ofPostgres(String declared) {
        int open = declared.indexOf('(');
        String name = (open < 0 ? declared : declared.substring(0, open)).strip();
        int size = open < 0 ? 0 : Integer.parseInt(declared.substring(open + 1, declared.indexOf(')', open)).split(",")[0]
                .strip());
        int jdbc = switch (name) {
            case "BIGINT" -> Types.BIGINT;
            case "INTEGER", "INT" -> Types.INTEGER;
            case "SMALLINT" -> Types.SMALLINT;
            case "BOOLEAN" -> Types.BOOLEAN;
            case "REAL" -> Types.REAL;
            case "DOUBLE PRECISION" -> Types.DOUBLE;
            case "BYTEA" -> Types.BINARY;
            default -> Types.VARCHAR;
        };
        return OracleType.of(jdbc, name, size, 0);
    }
}
