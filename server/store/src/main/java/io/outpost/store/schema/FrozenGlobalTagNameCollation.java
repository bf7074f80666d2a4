package io.outpost.store.schema;

import io.outpost.store.db.MariaDbDialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;
import org.flywaydb.core.api.MigrationVersion;
import org.flywaydb.core.api.migration.Context;
import org.flywaydb.core.api.migration.JavaMigration;

/**
 * MariaDB / MySQL migration 5.1: the name columns of the frozen global tags (V5) get the NO PAD collation that
 * migration 3.1 ({@link ExactNameCollation}) gave every other name column, chosen from the server's version as there,
 * so a padded global-tag, folder or tag name cannot reach a frozen row.
 */
public final class FrozenGlobalTagNameCollation implements JavaMigration {

    @Override
    public MigrationVersion getVersion() {
        return MigrationVersion.fromVersion("5.1");
    }

    @Override
    public String getDescription() {
        return "frozen global tag names compare exactly";
    }

    @Override
    public Integer getChecksum() {
        return 51;
    }

    @Override
    public boolean canExecuteInTransaction() {
        return false;
    }

    @Override
    public void migrate(Context context) throws SQLException {
        Connection c = context.getConnection();
        String prefix = context.getConfiguration().getPlaceholders().get("prefix");
        String collation = MariaDbDialect.nameCollationOf(c.getMetaData().getDatabaseProductVersion());
        Map<String, Boolean> cols = new LinkedHashMap<>();
        cols.put("GLOBAL_TAG", true);
        cols.put("FOLDER_PATH", true);
        cols.put("FOLDER_TAG", false);
        try (Statement st = c.createStatement()) {
            st.execute(ExactNameCollation.alter(prefix + "FROZEN_GLOBAL_TAGS", cols, collation));
        }
    }
}
