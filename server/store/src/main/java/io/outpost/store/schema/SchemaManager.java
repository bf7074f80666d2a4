package io.outpost.store.schema;

import io.outpost.store.db.Database;
import io.outpost.store.db.Dialect;
import io.outpost.store.model.Node;
import io.outpost.store.model.PayloadField;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationVersion;
import org.flywaydb.core.api.migration.JavaMigration;

/**
 * Creates and upgrades the schema. The database-wide tables come from versioned Flyway migrations (one folder
 * of SQL per dialect, table prefix as a placeholder, and a few Java migrations that change every folder's tables);
 * each folder's own tables are created here when the folder
 * is created, because their columns follow the folder's payload specification.
 */
public final class SchemaManager {
    private final Database db;

    public SchemaManager(Database db) {
        this.db = db;
    }

    /** Applies pending migrations; safe to call on every start. Returns the number applied. */
    public int migrate() {
        return migrateTo(MigrationVersion.LATEST);
    }

    /** Applies the migrations up to {@code target} only (tests make a database as an older release left it). */
    int migrateTo(MigrationVersion target) {
        Flyway flyway = Flyway.configure()
                // Own connections, not the writer pool, so the migration never competes with pooled writers;
                // Flyway holds one connection for its history table while migrating on another.
                .dataSource(db.config().jdbcUrl(), db.config().user(), db.config().password())
                .locations("classpath:db/migration/" + db.dialect().name())
                .javaMigrations(db.dialect().javaMigrations().toArray(JavaMigration[]::new))
                .placeholders(Map.of("prefix", db.prefix()))
                .table(db.prefix() + "SCHEMA_HISTORY")
                .baselineOnMigrate(false)
                .target(target)
                .load();
        return flyway.migrate().migrationsExecuted;
    }

    /** The DDL of one folder's tables, in execution order. */
    public List<String> folderDdl(Node folder) {
        return folderDdl(db.dialect(), folder);
    }

    /** The DDL of one folder's tables in dialect {@code d}: also how another dialect would declare its columns. */
    public static List<String> folderDdl(Dialect d, Node folder) {
        String big = d.bigintType();
        String integer = d.integerType();
        String s255 = d.stringType(255);
        String iovs = folder.iovTable();
        List<String> ddl = new ArrayList<>();
        ddl.add("CREATE TABLE " + folder.iovSeqTable() + " (SEQUENCE_NAME " + s255 + " NOT NULL PRIMARY KEY, "
                + "CURRENT_VALUE " + big + " NOT NULL, LASTMOD_DATE " + s255 + ")" + d.tableOptions());
        ddl.add("CREATE TABLE " + folder.channelTable() + " (CHANNEL_ID " + big + " NOT NULL PRIMARY KEY, "
                + "LAST_OBJECT_ID " + big + " NOT NULL, HAS_NEW_DATA " + integer + " NOT NULL, CHANNEL_NAME " + d.nameType(255)
                + ", DESCRIPTION " + s255 + ", CONSTRAINT " + folder.channelTable() + "_NAME_UK UNIQUE (CHANNEL_NAME))"
                + d.tableOptions());
        StringBuilder t = new StringBuilder("CREATE TABLE " + iovs + " (OBJECT_ID " + pkType(d) + " NOT NULL PRIMARY KEY, "
                + "CHANNEL_ID " + big + " NOT NULL, IOV_SINCE " + big + " NOT NULL, IOV_UNTIL " + big + " NOT NULL, "
                + "USER_TAG_ID " + big + " NOT NULL, SYS_INSTIME " + s255 + " NOT NULL, LASTMOD_DATE " + s255 + ", "
                + "ORIGINAL_ID " + big + " NOT NULL, NEW_HEAD_ID " + big + " NOT NULL");
        for (PayloadField f : folder.payloadSpec().fields()) {
            t.append(", ").append(f.column()).append(' ').append(d.typeOf(f.type()));
        }
        t.append(")").append(d.tableOptions());
        ddl.add(t.toString());
        ddl.add("CREATE INDEX " + iovs + "_CO_2INDX ON " + iovs + " (CHANNEL_ID, OBJECT_ID)");
        ddl.add("CREATE INDEX " + iovs + "_CSU_3INDX ON " + iovs + " (CHANNEL_ID, IOV_SINCE, IOV_UNTIL)");
        if (folder.isMultiVersion()) {
            ddl.add("CREATE UNIQUE INDEX " + iovs + "_UTAG_5INDX ON " + iovs
                    + " (USER_TAG_ID, NEW_HEAD_ID, CHANNEL_ID, IOV_SINCE, IOV_UNTIL)");
            String i2t = folder.iov2TagTable();
            ddl.add("CREATE TABLE " + i2t + " (TAG_ID " + big + " NOT NULL, OBJECT_ID " + big + " NOT NULL, "
                    + "CHANNEL_ID " + big + " NOT NULL, IOV_SINCE " + big + " NOT NULL, IOV_UNTIL " + big + " NOT NULL, "
                    + "SYS_INSTIME " + s255 + " NOT NULL, CONSTRAINT " + i2t + "_PK PRIMARY KEY (TAG_ID, OBJECT_ID))"
                    + d.tableOptions());
            ddl.add("CREATE INDEX " + i2t + "_4INDX ON " + i2t + " (TAG_ID, CHANNEL_ID, IOV_SINCE, IOV_UNTIL)");
        }
        return ddl;
    }

    /** SQLite: INTEGER PRIMARY KEY makes OBJECT_ID the rowid, the table's own b-tree key. */
    private static String pkType(Dialect d) {
        return d.bigintType();
    }

    /**
     * Creates the folder's tables inside the caller's transaction (DDL is transactional on SQLite and PostgreSQL;
     * MariaDB commits before each CREATE TABLE, see {@link Dialect#transactionalDdl()}).
     */
    public void createFolderTables(Connection c, Node folder, String now) throws SQLException {
        try (Statement st = c.createStatement()) {
            for (String sql : folderDdl(folder)) {
                st.execute(sql);
            }
        }
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + folder.iovSeqTable()
                + " (SEQUENCE_NAME, CURRENT_VALUE, LASTMOD_DATE) VALUES (?, 0, ?)")) {
            ps.setString(1, folder.iovSeqTable());
            ps.setString(2, now);
            ps.executeUpdate();
        }
    }

    /** Drops what {@link #createFolderTables} made, where DDL cannot be rolled back; failures are ignored. */
    public void dropFolderTablesQuietly(Connection c, Node folder) {
        List<String> tables = new ArrayList<>(List.of(folder.iovSeqTable(), folder.channelTable(), folder.iovTable()));
        if (folder.isMultiVersion()) {
            tables.add(folder.iov2TagTable());
        }
        for (String t : tables) {
            try (Statement st = c.createStatement()) {
                st.execute("DROP TABLE IF EXISTS " + t);
            } catch (SQLException e) {
                // best effort: the folder's node row was never written, so nothing reads these tables
            }
        }
    }
}
