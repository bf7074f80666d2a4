package io.outpost.frontier;

import io.outpost.frontier.protocol.FrontierConfig;
import io.outpost.frontier.sql.TablePolicy;
import io.outpost.store.db.Database;
import io.outpost.store.db.DatabaseConfig;
import io.outpost.store.testing.Backends;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A database holding the CMS CondDB v2 tables (test resource {@code cms/conddb-v2-<backend>.sql}: the public
 * definitions with a few global tags, tags, IOVs and payloads), opened as a Frontier context's database.
 */
final class CmsSchema {
    /** The Oracle owner CMS jobs put in front of every table; the context strips it (SchemaName). */
    static final String OWNER = "CMS_CONDITIONS";
    static final String H1 = "1111111111111111111111111111111111111111";
    static final String H2 = "2222222222222222222222222222222222222222";
    static final String H3 = "3333333333333333333333333333333333333333";

    private CmsSchema() {
    }

    static Database create(Backends b, String name) throws SQLException, IOException {
        DatabaseConfig cfg = b.freshConfig(name);
        String script = script(b.name().toLowerCase(java.util.Locale.ROOT));
        try (Connection c = DriverManager.getConnection(cfg.jdbcUrl(), cfg.user(), cfg.password());
             Statement st = c.createStatement()) {
            for (String sql : script.split(";\\s*\\n")) {
                String s = sql.lines().filter(l -> !l.startsWith("--")).reduce("", (x, y) -> x + "\n" + y).strip();
                if (!s.isEmpty()) {
                    st.execute(s);
                }
            }
        }
        return Database.open(cfg.withPools(2, 1));
    }

    /** Closes the database and, for SQLite, deletes its temporary folder. */
    static void drop(Database db) throws IOException {
        String url = db.config().jdbcUrl();
        db.close();
        if (url.startsWith("jdbc:sqlite:")) {
            java.nio.file.Path dir = java.nio.file.Path.of(url.substring("jdbc:sqlite:".length())).getParent();
            deleteTree(dir);
        }
    }

    static void deleteTree(java.nio.file.Path dir) throws IOException {
        if (dir == null || !java.nio.file.Files.exists(dir)) {
            return;
        }
        try (var paths = java.nio.file.Files.walk(dir)) {
            for (java.nio.file.Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                java.nio.file.Files.delete(p);
            }
        }
    }

    static String script(String dialect) throws IOException {
        try (InputStream in = CmsSchema.class.getResourceAsStream("/cms/conddb-v2-" + dialect + ".sql")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** The context settings of a CMS conditions service: the CMS profile, the owner stripped. */
    static FrontierContext context(String name, Database db) {
        java.util.Map<String, String> settings = java.util.Map.of("Profile", "cms-conddb-v2", "SchemaName", OWNER);
        return new FrontierContext(name, db, FrontierConfig.fromProperties(name, settings), null,
                TablePolicy.fromProperties(settings, db.prefix()));
    }
}
