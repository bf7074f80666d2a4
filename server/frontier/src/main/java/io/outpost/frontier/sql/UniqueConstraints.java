package io.outpost.frontier.sql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * A table's declared UNIQUE constraints, with the names they were declared with. JDBC metadata shows them only as
 * unique indexes (on SQLite under internal names such as {@code sqlite_autoindex_T_1}), while Oracle's dictionary,
 * and CORAL reading it, tell a unique constraint from a unique index.
 */
final class UniqueConstraints {
    private UniqueConstraints() {
    }

    /** The constraints of {@code table} (as stored), names and columns upper-case, in declaration order. */
    static List<AdmittedSchema.IndexInfo> of(Connection c, FrontierDialect dialect, String table) throws SQLException {
        return dialect.keepsCatalogAsDdl() ? fromSqliteDdl(c, table) : fromInformationSchema(c, dialect, table);
    }

    /** SQLite keeps no constraint names in its catalog, only the CREATE TABLE text: read them from there. */
    private static List<AdmittedSchema.IndexInfo> fromSqliteDdl(Connection c, String table) throws SQLException {
        String ddl;
        try (PreparedStatement ps = c.prepareStatement("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?")) {
            ps.setString(1, table);
            try (ResultSet rs = ps.executeQuery()) {
                ddl = rs.next() ? rs.getString(1) : null;
            }
        }
        if (ddl == null) {
            return List.of();
        }
        TableDeclaration declared = TableDeclaration.parse(ddl);
        if (declared == null) {
            throw new SQLException("cannot read the constraints of table " + table);
        }
        List<AdmittedSchema.IndexInfo> out = new ArrayList<>();
        for (TableDeclaration.Unique u : declared.uniques()) {
            // an unnamed constraint gets a stable name of its table and position
            String name = u.name() != null ? u.name() : declared.table() + "_UK" + (out.size() + 1);
            out.add(new AdmittedSchema.IndexInfo(name, true, u.columns()));
        }
        return out;
    }

    private static List<AdmittedSchema.IndexInfo> fromInformationSchema(Connection c, FrontierDialect dialect, String table)
            throws SQLException {
        String sql = "SELECT tc.constraint_name, kcu.column_name, kcu.ordinal_position "
                + "FROM information_schema.table_constraints tc JOIN information_schema.key_column_usage kcu "
                + "ON kcu.constraint_schema = tc.constraint_schema AND kcu.constraint_name = tc.constraint_name "
                + "AND kcu.table_name = tc.table_name "
                + "WHERE tc.constraint_type = 'UNIQUE' AND tc.table_name = ? AND tc.table_schema = "
                + dialect.currentSchemaFunction();
        Map<String, TreeMap<Integer, String>> byName = new LinkedHashMap<>();
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, table);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    byName.computeIfAbsent(rs.getString(1).toUpperCase(Locale.ROOT), k -> new TreeMap<>())
                            .put(rs.getInt(3), rs.getString(2).toUpperCase(Locale.ROOT));
                }
            }
        }
        List<AdmittedSchema.IndexInfo> out = new ArrayList<>();
        byName.forEach((name, cols) -> out.add(new AdmittedSchema.IndexInfo(name, true, List.copyOf(cols.values()))));
        return out;
    }
}
