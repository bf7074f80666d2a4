package io.outpost.frontier;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Oracle's data-dictionary views for PostgreSQL and SQLite contexts. CORAL's Frontier plugin asks Oracle's catalog
 * whether a table exists and what its columns, keys and indexes are ({@code ALL_TAB_COLUMNS}, {@code ALL_CONSTRAINTS}
 * ...). This class reads the real catalog of the context's database through JDBC metadata, keeps only the tables the
 * context's {@link TablePolicy} admits, and puts them in Oracle's shape (upper-case names, Oracle type names, owner =
 * the context's schema name) into an in-memory SQLite database, where the statement then runs as written.
 */
final class DataDictionary {
    /** The views answered, with their columns (SQLite DDL). */
    static final Map<String, String> DDL = new LinkedHashMap<>();

    static {
        DDL.put("ALL_TABLES", "OWNER VARCHAR, TABLE_NAME VARCHAR, TABLESPACE_NAME VARCHAR");
        DDL.put("ALL_TAB_COLUMNS", "OWNER VARCHAR, TABLE_NAME VARCHAR, COLUMN_NAME VARCHAR, COLUMN_ID INTEGER, "
                + "NULLABLE VARCHAR, DATA_TYPE VARCHAR, DATA_LENGTH INTEGER, DATA_PRECISION INTEGER, DATA_SCALE INTEGER, "
                + "CHAR_LENGTH INTEGER");
        DDL.put("ALL_OBJECTS", "OWNER VARCHAR, OBJECT_NAME VARCHAR, OBJECT_TYPE VARCHAR");
        DDL.put("ALL_VIEWS", "OWNER VARCHAR, VIEW_NAME VARCHAR, TEXT VARCHAR");
        DDL.put("ALL_CONSTRAINTS", "OWNER VARCHAR, CONSTRAINT_NAME VARCHAR, CONSTRAINT_TYPE VARCHAR, TABLE_NAME VARCHAR, "
                + "R_OWNER VARCHAR, R_CONSTRAINT_NAME VARCHAR, INDEX_NAME VARCHAR");
        DDL.put("ALL_CONS_COLUMNS", "OWNER VARCHAR, CONSTRAINT_NAME VARCHAR, TABLE_NAME VARCHAR, COLUMN_NAME VARCHAR, "
                + "POSITION INTEGER");
        DDL.put("ALL_INDEXES", "OWNER VARCHAR, INDEX_NAME VARCHAR, TABLE_OWNER VARCHAR, TABLE_NAME VARCHAR, "
                + "UNIQUENESS VARCHAR, TABLESPACE_NAME VARCHAR");
        DDL.put("ALL_IND_COLUMNS", "INDEX_OWNER VARCHAR, INDEX_NAME VARCHAR, TABLE_OWNER VARCHAR, TABLE_NAME VARCHAR, "
                + "COLUMN_NAME VARCHAR, COLUMN_POSITION INTEGER");
    }

    /** The names of the views, for {@link SqlGuard}. */
    static final Set<String> VIEWS = Set.copyOf(DDL.keySet());

    /** Oracle puts every table in a tablespace; ours are all reported in this one. */
    static final String TABLESPACE = "OUTPOST_DATA";

    private DataDictionary() {
    }

    /**
     * An in-memory SQLite database holding the dictionary views for the tables of {@code source} that {@code policy}
     * admits, owned by {@code owner}. The caller closes it.
     */
    static Connection snapshot(Connection source, TablePolicy policy, String owner) throws SQLException {
        Catalog catalog = Catalog.read(source, policy);
        Connection mem = DriverManager.getConnection("jdbc:sqlite::memory:");
        try {
            try (Statement st = mem.createStatement()) {
                for (var e : DDL.entrySet()) {
                    st.execute("CREATE TABLE " + e.getKey() + " (" + e.getValue() + ")");
                }
            }
            mem.setAutoCommit(false);
            catalog.write(mem, owner);
            mem.commit();
            return mem;
        } catch (SQLException | RuntimeException e) {
            mem.close();
            throw e;
        }
    }

    /** Oracle's DATA_TYPE, DATA_LENGTH, DATA_PRECISION, DATA_SCALE, CHAR_LENGTH for a JDBC column. */
    record OracleType(String name, int length, Integer precision, Integer scale, int charLength) {
        static OracleType of(int jdbcType, String typeName, int size, int digits) {
            String t = typeName == null ? "" : typeName.toUpperCase(Locale.ROOT);
            if (t.contains("TIMESTAMP")) {
                return new OracleType("TIMESTAMP(6)", 11, null, 6, 0);
            }
            if (t.equals("DATE")) {
                return new OracleType("DATE", 7, null, null, 0);
            }
            if (t.contains("BLOB") || t.equals("BYTEA")) {
                return new OracleType("BLOB", 4000, null, null, 0);
            }
            if (t.contains("CLOB") || t.equals("TEXT")) {
                return new OracleType("CLOB", 4000, null, null, 0);
            }
            // SQLite reports every integer type as INTEGER: its declared name tells the width
            if (t.equals("BIGINT") || t.equals("INT8")) {
                return number(20, 0);
            }
            if (t.equals("SMALLINT") || t.equals("INT2")) {
                return number(5, 0);
            }
            return switch (jdbcType) {
                case Types.BIGINT -> number(20, 0);
                case Types.INTEGER -> number(10, 0);
                case Types.SMALLINT -> number(5, 0);
                case Types.TINYINT -> number(3, 0);
                case Types.BIT, Types.BOOLEAN -> number(1, 0);
                case Types.NUMERIC, Types.DECIMAL -> size > 0 && size <= 38 ? number(size, Math.max(digits, 0))
                        : new OracleType("NUMBER", 22, null, null, 0);
                case Types.REAL -> new OracleType("BINARY_FLOAT", 4, null, null, 0);
                case Types.FLOAT, Types.DOUBLE -> new OracleType("BINARY_DOUBLE", 8, null, null, 0);
                case Types.CHAR, Types.NCHAR -> new OracleType("CHAR", bounded(size), null, null, bounded(size));
                case Types.BLOB, Types.BINARY, Types.VARBINARY, Types.LONGVARBINARY -> new OracleType("BLOB", 4000, null,
                        null, 0);
                case Types.DATE -> new OracleType("DATE", 7, null, null, 0);
                case Types.TIMESTAMP, Types.TIMESTAMP_WITH_TIMEZONE -> new OracleType("TIMESTAMP(6)", 11, null, 6, 0);
                default -> new OracleType("VARCHAR2", bounded(size), null, null, bounded(size));
            };
        }

        private static OracleType number(int precision, int scale) {
            return new OracleType("NUMBER", 22, precision, scale, 0);
        }

        /** Unbounded or unknown string sizes are reported as Oracle's VARCHAR2 maximum. */
        private static int bounded(int size) {
            return size > 0 && size <= 4000 ? size : 4000;
        }
    }

    record ColumnInfo(String name, int position, boolean nullable, OracleType type) {
    }

    record IndexInfo(String name, boolean unique, List<String> columns) {
    }

    record ForeignKey(String name, String refTable, List<String> columns) {
    }

    record TableInfo(String name, boolean view, List<ColumnInfo> columns, String pkName, List<String> pkColumns,
                     List<IndexInfo> indexes, List<ForeignKey> foreignKeys, String viewText) {
    }

    /** The admitted tables and views of a database, as JDBC metadata describes them, names upper-cased. */
    record Catalog(List<TableInfo> tables) {
        static Catalog read(Connection c, TablePolicy policy) throws SQLException {
            DatabaseMetaData md = c.getMetaData();
            String schema = c.getSchema();
            Map<String, String> names = new TreeMap<>(); // upper -> name as stored
            Map<String, Boolean> views = new HashMap<>();
            try (ResultSet rs = md.getTables(null, schema, "%", new String[] {"TABLE", "VIEW"})) {
                while (rs.next()) {
                    String stored = rs.getString("TABLE_NAME");
                    String upper = stored.toUpperCase(Locale.ROOT);
                    if (policy.allowsTable(upper)) {
                        names.put(upper, stored);
                        views.put(upper, "VIEW".equalsIgnoreCase(rs.getString("TABLE_TYPE")));
                    }
                }
            }
            List<TableInfo> out = new ArrayList<>();
            Map<String, String> viewTexts = views.containsValue(true) ? viewTexts(c) : Map.of();
            Map<String, String> pkNames = new HashMap<>();
            Map<String, List<String[]>> importedKeys = new HashMap<>();
            for (var e : names.entrySet()) {
                String upper = e.getKey();
                String stored = e.getValue();
                List<ColumnInfo> cols = new ArrayList<>();
                try (ResultSet rs = md.getColumns(null, schema, stored, "%")) {
                    while (rs.next()) {
                        cols.add(new ColumnInfo(rs.getString("COLUMN_NAME").toUpperCase(Locale.ROOT),
                                rs.getInt("ORDINAL_POSITION"), rs.getInt("NULLABLE") != DatabaseMetaData.columnNoNulls,
                                OracleType.of(rs.getInt("DATA_TYPE"), rs.getString("TYPE_NAME"), rs.getInt("COLUMN_SIZE"),
                                        rs.getInt("DECIMAL_DIGITS"))));
                    }
                }
                cols.sort((a, b) -> Integer.compare(a.position(), b.position()));
                TreeMap<Integer, String> pk = new TreeMap<>();
                String pkName = null;
                if (!views.get(upper)) {
                    try (ResultSet rs = md.getPrimaryKeys(null, schema, stored)) {
                        while (rs.next()) {
                            pk.put(rs.getInt("KEY_SEQ"), rs.getString("COLUMN_NAME").toUpperCase(Locale.ROOT));
                            String n = rs.getString("PK_NAME");
                            if (n != null && !n.isBlank()) {
                                pkName = n.toUpperCase(Locale.ROOT);
                            }
                        }
                    }
                }
                List<String> pkColumns = List.copyOf(pk.values());
                if (!pkColumns.isEmpty() && pkName == null) {
                    pkName = upper + "_PK";
                }
                if (pkName != null) {
                    pkNames.put(upper, pkName);
                }
                List<IndexInfo> indexes = views.get(upper) ? List.of() : indexes(md, schema, stored, pkName, pkColumns);
                if (!views.get(upper)) {
                    try (ResultSet rs = md.getImportedKeys(null, schema, stored)) {
                        List<String[]> keys = new ArrayList<>();
                        while (rs.next()) {
                            keys.add(new String[] {rs.getString("FK_NAME"), rs.getString("PKTABLE_NAME"),
                                rs.getString("FKCOLUMN_NAME"), Integer.toString(rs.getInt("KEY_SEQ"))});
                        }
                        importedKeys.put(upper, keys);
                    }
                }
                out.add(new TableInfo(upper, views.get(upper), cols, pkName, pkColumns, indexes, new ArrayList<>(),
                        viewTexts.get(upper)));
            }
            for (TableInfo t : out) {
                foreignKeys(t, importedKeys.getOrDefault(t.name(), List.of()), pkNames);
            }
            return new Catalog(out);
        }

        /** View definitions (the SELECT), by upper-case name; JDBC metadata does not carry them. */
        private static Map<String, String> viewTexts(Connection c) throws SQLException {
            boolean postgres = c.getMetaData().getDatabaseProductName().toLowerCase(Locale.ROOT).contains("postgres");
            String sql = postgres
                    ? "SELECT table_name, view_definition FROM information_schema.views WHERE table_schema = current_schema()"
                    : "SELECT name, sql FROM sqlite_master WHERE type = 'view'";
            Map<String, String> out = new HashMap<>();
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
                while (rs.next()) {
                    String text = rs.getString(2) == null ? "" : rs.getString(2).strip();
                    if (!postgres) {
                        // CREATE VIEW name AS <select>
                        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?is)^CREATE\\s+.*?\\sAS\\s+(.*)$")
                                .matcher(text);
                        text = m.matches() ? m.group(1).strip() : text;
                    }
                    out.put(rs.getString(1).toUpperCase(Locale.ROOT), text.endsWith(";")
                            ? text.substring(0, text.length() - 1).strip() : text);
                }
            }
            return out;
        }

        private static List<IndexInfo> indexes(DatabaseMetaData md, String schema, String table, String pkName,
                                               List<String> pkColumns) throws SQLException {
            Map<String, Boolean> unique = new LinkedHashMap<>();
            Map<String, TreeMap<Integer, String>> cols = new LinkedHashMap<>();
            try (ResultSet rs = md.getIndexInfo(null, schema, table, false, true)) {
                while (rs.next()) {
                    String name = rs.getString("INDEX_NAME");
                    String col = rs.getString("COLUMN_NAME");
                    if (name == null || col == null || rs.getShort("TYPE") == DatabaseMetaData.tableIndexStatistic) {
                        continue;
                    }
                    String upper = name.toUpperCase(Locale.ROOT);
                    unique.put(upper, !rs.getBoolean("NON_UNIQUE"));
                    cols.computeIfAbsent(upper, k -> new TreeMap<>()).put((int) rs.getShort("ORDINAL_POSITION"),
                            col.toUpperCase(Locale.ROOT));
                }
            }
            List<IndexInfo> out = new ArrayList<>();
            if (pkName != null) {
                // Oracle backs a primary key with a unique index of the constraint's name
                out.add(new IndexInfo(pkName, true, pkColumns));
            }
            for (var e : cols.entrySet()) {
                List<String> c = List.copyOf(e.getValue().values());
                boolean backsPk = e.getKey().equals(pkName) || unique.get(e.getKey()) && c.equals(pkColumns);
                if (!backsPk) {
                    out.add(new IndexInfo(e.getKey(), unique.get(e.getKey()), c));
                }
            }
            return out;
        }

        private static void foreignKeys(TableInfo t, List<String[]> keys, Map<String, String> pkNames) {
            Map<String, String[]> byName = new LinkedHashMap<>();
            Map<String, TreeMap<Integer, String>> cols = new LinkedHashMap<>();
            int unnamed = 0;
            String lastSynthetic = null;
            for (String[] k : keys) {
                String refTable = k[1].toUpperCase(Locale.ROOT);
                if (!pkNames.containsKey(refTable)) {
                    continue; // the referenced table is not part of this context
                }
                int seq = Integer.parseInt(k[3]);
                String name = k[0] == null || k[0].isBlank() ? null : k[0].toUpperCase(Locale.ROOT);
                if (name == null) {
                    // unnamed keys (SQLite): a new key starts at KEY_SEQ 1
                    name = seq == 1 || lastSynthetic == null ? t.name() + "_FK" + (++unnamed) : lastSynthetic;
                    lastSynthetic = name;
                }
                byName.put(name, new String[] {refTable});
                cols.computeIfAbsent(name, x -> new TreeMap<>()).put(seq, k[2].toUpperCase(Locale.ROOT));
            }
            for (var e : byName.entrySet()) {
                t.foreignKeys().add(new ForeignKey(e.getKey(), e.getValue()[0], List.copyOf(cols.get(e.getKey()).values())));
            }
        }

        void write(Connection mem, String owner) throws SQLException {
            Map<String, String> pkNames = new HashMap<>();
            for (TableInfo t : tables) {
                if (t.pkName() != null) {
                    pkNames.put(t.name(), t.pkName());
                }
            }
            try (PreparedStatement tabs = mem.prepareStatement("INSERT INTO ALL_TABLES VALUES (?,?,?)");
                 PreparedStatement objs = mem.prepareStatement("INSERT INTO ALL_OBJECTS VALUES (?,?,?)");
                 PreparedStatement vws = mem.prepareStatement("INSERT INTO ALL_VIEWS VALUES (?,?,?)");
                 PreparedStatement cols = mem.prepareStatement("INSERT INTO ALL_TAB_COLUMNS VALUES (?,?,?,?,?,?,?,?,?,?)");
                 PreparedStatement cons = mem.prepareStatement("INSERT INTO ALL_CONSTRAINTS VALUES (?,?,?,?,?,?,?)");
                 PreparedStatement consCols = mem.prepareStatement("INSERT INTO ALL_CONS_COLUMNS VALUES (?,?,?,?,?)");
                 PreparedStatement idx = mem.prepareStatement("INSERT INTO ALL_INDEXES VALUES (?,?,?,?,?,?)");
                 PreparedStatement idxCols = mem.prepareStatement("INSERT INTO ALL_IND_COLUMNS VALUES (?,?,?,?,?,?)")) {
                for (TableInfo t : tables) {
                    exec(objs, owner, t.name(), t.view() ? "VIEW" : "TABLE");
                    if (t.view()) {
                        exec(vws, owner, t.name(), t.viewText());
                    } else {
                        exec(tabs, owner, t.name(), TABLESPACE);
                    }
                    for (ColumnInfo c : t.columns()) {
                        OracleType o = c.type();
                        exec(cols, owner, t.name(), c.name(), c.position(), c.nullable() ? "Y" : "N", o.name(),
                                o.length(), o.precision(), o.scale(), o.charLength());
                    }
                    if (t.pkName() != null) {
                        exec(cons, owner, t.pkName(), "P", t.name(), null, null, t.pkName());
                        position(consCols, owner, t.pkName(), t.name(), t.pkColumns());
                    }
                    for (IndexInfo i : t.indexes()) {
                        exec(idx, owner, i.name(), owner, t.name(), i.unique() ? "UNIQUE" : "NONUNIQUE", TABLESPACE);
                        for (int k = 0; k < i.columns().size(); k++) {
                            exec(idxCols, owner, i.name(), owner, t.name(), i.columns().get(k), k + 1);
                        }
                    }
                    for (ForeignKey f : t.foreignKeys()) {
                        exec(cons, owner, f.name(), "R", t.name(), owner, pkNames.get(f.refTable()), null);
                        position(consCols, owner, f.name(), t.name(), f.columns());
                    }
                }
            }
        }

        private static void position(PreparedStatement ps, String owner, String constraint, String table,
                                     List<String> columns) throws SQLException {
            for (int k = 0; k < columns.size(); k++) {
                exec(ps, owner, constraint, table, columns.get(k), k + 1);
            }
        }

        private static void exec(PreparedStatement ps, Object... values) throws SQLException {
            for (int i = 0; i < values.length; i++) {
                ps.setObject(i + 1, values[i]);
            }
            ps.executeUpdate();
        }
    }
}
