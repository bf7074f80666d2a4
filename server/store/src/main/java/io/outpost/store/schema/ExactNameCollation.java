package io.outpost.store.schema;

import io.outpost.store.db.MariaDbDialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.flywaydb.core.api.MigrationVersion;
import org.flywaydb.core.api.migration.Context;
import org.flywaydb.core.api.migration.JavaMigration;

/**
 * MariaDB / MySQL migrations that give name columns the server's NO PAD binary collation ({@code utf8mb4_nopad_bin},
 * MySQL 8: {@code utf8mb4_0900_bin}). The tables were made in {@code utf8mb4_bin}, which is PAD SPACE: there
 * {@code 'ch0' = 'ch0 '}, so a padded spelling of a name read, truncated and wrote the other object. Their unique keys
 * are rebuilt with them. Java migrations because the channel tables are one per folder; only the small tables
 * change, no IOV table is touched. 3.1: the database-wide tables and every folder's channel table; 5.1: the frozen
 * global tags of V5.
 */
public final class ExactNameCollation implements JavaMigration {

    /** Name columns of the database-wide tables: table (without prefix) → column → NOT NULL. */
    private static final Map<String, Map<String, Boolean>> NAME_COLUMNS = new LinkedHashMap<>();

    static {
        NAME_COLUMNS.put("NODES", columns("NODE_NAME", true, "NODE_FULLPATH", true));
        NAME_COLUMNS.put("TAGS", columns("TAG_NAME", true));
        NAME_COLUMNS.put("SNAPSHOT_COVERAGE", columns("FOLDER_PATH", true, "GLOBAL_TAG", true, "FOLDER_TAG", false));
        NAME_COLUMNS.put("WRITE_AUDIT", columns("NODE_PATH", false, "TAG_NAME", false));
        // not a name of the data, but a key compared the same way: 'k ' must not answer for 'k'
        NAME_COLUMNS.put("IDEMPOTENCY_KEYS", columns("SUBJECT", true, "IDEMPOTENCY_KEY", true));
    }

    private final String version;
    private final String description;
    private final Map<String, Map<String, Boolean>> tables;
    private final boolean channelTables;

    private ExactNameCollation(String version, String description, Map<String, Map<String, Boolean>> tables,
                               boolean channelTables) {
        this.version = version;
        this.description = description;
        this.tables = tables;
        this.channelTables = channelTables;
    }

    /** 3.1: the database-wide name columns and every folder's CHANNEL_NAME. */
    public static ExactNameCollation names() {
        return new ExactNameCollation("3.1", "names compare exactly", NAME_COLUMNS, true);
    }

    /** 5.1: the name columns of the frozen global tags (V5). */
    public static ExactNameCollation frozenGlobalTags() {
        return new ExactNameCollation("5.1", "frozen global tag names compare exactly", Map.of("FROZEN_GLOBAL_TAGS",
                columns("GLOBAL_TAG", true, "FOLDER_PATH", true, "FOLDER_TAG", false)), false);
    }

    private static Map<String, Boolean> columns(Object... nameAndNotNull) {
        Map<String, Boolean> m = new LinkedHashMap<>();
        for (int i = 0; i < nameAndNotNull.length; i += 2) {
            m.put((String) nameAndNotNull[i], (Boolean) nameAndNotNull[i + 1]);
        }
        return m;
    }

    @Override
    public MigrationVersion getVersion() {
        return MigrationVersion.fromVersion(version);
    }

    @Override
    public String getDescription() {
        return description;
    }

    @Override
    public Integer getChecksum() {
        return Integer.parseInt(version.replace(".", ""));
    }

    /** MariaDB commits before every ALTER TABLE anyway. */
    @Override
    public boolean canExecuteInTransaction() {
        return false;
    }

    @Override
    public void migrate(Context context) throws SQLException {
        Connection c = context.getConnection();
        String prefix = context.getConfiguration().getPlaceholders().get("prefix");
        String collation = MariaDbDialect.nameCollationOf(c.getMetaData().getDatabaseProductVersion());
        List<String> statements = new ArrayList<>();
        tables.forEach((table, cols) -> statements.add(alter(prefix + table, cols, collation)));
        if (channelTables) {
            for (String channelTable : channelTables(c, prefix)) {
                statements.add(alter(channelTable, Map.of("CHANNEL_NAME", false), collation));
            }
        }
        try (Statement st = c.createStatement()) {
            for (String sql : statements) {
                st.execute(sql);
            }
        }
    }

    /** One ALTER TABLE per table, so each table is rebuilt once. */
    static String alter(String table, Map<String, Boolean> cols, String collation) {
        StringBuilder sql = new StringBuilder("ALTER TABLE ").append(table);
        String sep = " ";
        for (Map.Entry<String, Boolean> col : cols.entrySet()) {
            sql.append(sep).append("MODIFY ").append(col.getKey()).append(" VARCHAR(255) CHARACTER SET utf8mb4 COLLATE ")
                    .append(collation).append(col.getValue() ? " NOT NULL" : "");
            sep = ", ";
        }
        return sql.toString();
    }

    private static List<String> channelTables(Connection c, String prefix) throws SQLException {
        List<String> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT FOLDER_CHANNELTABLENAME FROM " + prefix
                + "NODES WHERE NODE_ISLEAF = 1 ORDER BY NODE_ID"); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }
}
