package io.outpost.frontier.sql;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/** The admitted tables and views of a database, as JDBC metadata describes them, names upper-cased. */
record AdmittedSchema(List<TableInfo> tables) {
    record ColumnInfo(String name, int position, boolean nullable, OracleType type) {
    }

    record IndexInfo(String name, boolean unique, List<String> columns) {
    }

    record ForeignKey(String name, String refTable, List<String> columns) {
    }

    /**
     * One table or view. {@code uniques} are the declared UNIQUE constraints (named as declared); each is also in
     * {@code indexes} as the unique index of the same name that backs it, as Oracle reports them.
     */
    record TableInfo(String name, boolean view, List<ColumnInfo> columns, String pkName, List<String> pkColumns,
                     List<IndexInfo> indexes, List<IndexInfo> uniques, List<ForeignKey> foreignKeys, String viewText) {
    }

    static AdmittedSchema read(Connection c, FrontierDialect dialect, TablePolicy policy, ColumnTypes types)
            throws SQLException {
        DatabaseMetaData md = c.getMetaData();
        boolean sqlite = dialect.keepsCatalogAsDdl();
        // where databases are JDBC catalogs: without the connection's own, metadata lists every database's tables
        String catalog = dialect.databasesAreCatalogs() ? c.getCatalog() : null;
        String schema = dialect.databasesAreCatalogs() ? null : c.getSchema();
        Map<String, String> names = new TreeMap<>(); // upper -> name as stored
        Map<String, Boolean> views = new HashMap<>();
        try (ResultSet rs = md.getTables(catalog, schema, "%", new String[] {"TABLE", "VIEW"})) {
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
        Map<String, String> viewTexts = views.containsValue(true) ? viewTexts(c, dialect) : Map.of();
        Map<String, String> pkNames = new HashMap<>();
        Map<String, List<String[]>> importedKeys = new HashMap<>();
        for (var e : names.entrySet()) {
            String upper = e.getKey();
            String stored = e.getValue();
            List<ColumnInfo> cols = new ArrayList<>();
            try (ResultSet rs = md.getColumns(catalog, schema, stored, "%")) {
                while (rs.next()) {
                    String column = rs.getString("COLUMN_NAME").toUpperCase(Locale.ROOT);
                    OracleType type = sqlite ? types.sqlite(c, upper, column, rs.getInt("DATA_TYPE"),
                            rs.getString("TYPE_NAME"), rs.getInt("COLUMN_SIZE"), rs.getInt("DECIMAL_DIGITS"))
                            : dialect.columnType(rs.getInt("DATA_TYPE"), rs.getString("TYPE_NAME"),
                                    rs.getInt("COLUMN_SIZE"), rs.getInt("DECIMAL_DIGITS"));
                    cols.add(new ColumnInfo(column, rs.getInt("ORDINAL_POSITION"),
                            rs.getInt("NULLABLE") != DatabaseMetaData.columnNoNulls, type));
                }
            }
            cols.sort((a, b) -> Integer.compare(a.position(), b.position()));
            TreeMap<Integer, String> pk = new TreeMap<>();
            String pkName = null;
            if (!views.get(upper)) {
                try (ResultSet rs = md.getPrimaryKeys(catalog, schema, stored)) {
                    while (rs.next()) {
                        pk.put(rs.getInt("KEY_SEQ"), rs.getString("COLUMN_NAME").toUpperCase(Locale.ROOT));
                        String n = rs.getString("PK_NAME");
                        // a name every primary key gets (MariaDB's PRIMARY) is none: Oracle's are unique per owner
                        if (n != null && !n.isBlank() && !n.equals(dialect.genericPrimaryKeyName())) {
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
            List<IndexInfo> uniques = views.get(upper) ? List.of() : UniqueConstraints.of(c, dialect, stored);
            Set<String> foreignKeyIndexes = new HashSet<>();
            if (!views.get(upper)) {
                try (ResultSet rs = md.getImportedKeys(catalog, schema, stored)) {
                    List<String[]> keys = new ArrayList<>();
                    while (rs.next()) {
                        keys.add(new String[] {rs.getString("FK_NAME"), rs.getString("PKTABLE_NAME"),
                            rs.getString("FKCOLUMN_NAME"), Integer.toString(rs.getInt("KEY_SEQ"))});
                        if (dialect.indexesForeignKeys() && rs.getString("FK_NAME") != null) {
                            // MariaDB indexes a foreign key's columns itself, under the key's name; Oracle does not
                            foreignKeyIndexes.add(rs.getString("FK_NAME").toUpperCase(Locale.ROOT));
                        }
                    }
                    importedKeys.put(upper, keys);
                }
            }
            List<IndexInfo> indexes = views.get(upper) ? List.of()
                    : indexes(md, catalog, schema, stored, pkName, pkColumns, uniques, sqlite).stream()
                            .filter(i -> !foreignKeyIndexes.contains(i.name())).toList();
            out.add(new TableInfo(upper, views.get(upper), cols, pkName, pkColumns, indexes, uniques, new ArrayList<>(),
                    viewTexts.get(upper)));
        }
        for (TableInfo t : out) {
            foreignKeys(t, importedKeys.getOrDefault(t.name(), List.of()), pkNames);
        }
        return new AdmittedSchema(out);
    }

    /** View definitions (the SELECT), by upper-case name; JDBC metadata does not carry them. */
    private static Map<String, String> viewTexts(Connection c, FrontierDialect dialect) throws SQLException {
        boolean sqlite = dialect.keepsCatalogAsDdl();
        String sql = sqlite ? "SELECT name, sql FROM sqlite_master WHERE type = 'view'"
                : "SELECT table_name, view_definition FROM information_schema.views WHERE table_schema = "
                        + dialect.currentSchemaFunction();
        Map<String, String> out = new HashMap<>();
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            while (rs.next()) {
                String text = rs.getString(2) == null ? "" : rs.getString(2).strip();
                if (sqlite) {
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

    private static List<IndexInfo> indexes(DatabaseMetaData md, String catalog, String schema, String table, String pkName,
                                           List<String> pkColumns, List<IndexInfo> uniques, boolean sqlite)
            throws SQLException {
        Map<String, Boolean> unique = new LinkedHashMap<>();
        Map<String, TreeMap<Integer, String>> cols = new LinkedHashMap<>();
        try (ResultSet rs = md.getIndexInfo(catalog, schema, table, false, true)) {
            while (rs.next()) {
                String name = rs.getString("INDEX_NAME");
                String col = rs.getString("COLUMN_NAME");
                if (name == null || col == null || rs.getShort("TYPE") == DatabaseMetaData.tableIndexStatistic) {
                    continue;
                }
                if (sqlite && name.startsWith("sqlite_autoindex_")) {
                    continue; // SQLite's own name for the index behind a PRIMARY KEY or UNIQUE constraint
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
        // and each UNIQUE constraint with a unique index of its name
        out.addAll(uniques);
        Set<String> constraintNames = new HashSet<>();
        uniques.forEach(u -> constraintNames.add(u.name()));
        for (var e : cols.entrySet()) {
            List<String> c = List.copyOf(e.getValue().values());
            boolean backsPk = e.getKey().equals(pkName) || unique.get(e.getKey()) && c.equals(pkColumns);
            if (!backsPk && !constraintNames.contains(e.getKey())) {
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
}
