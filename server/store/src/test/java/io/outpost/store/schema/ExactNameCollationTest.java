package io.outpost.store.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outpost.store.IovStore;
import io.outpost.store.StoreException;
import io.outpost.store.db.Database;
import io.outpost.store.db.DatabaseConfig;
import io.outpost.store.db.MariaDbDialect;
import io.outpost.store.globaltag.GlobalTags;
import io.outpost.store.model.ChannelSelection;
import io.outpost.store.model.KeyType;
import io.outpost.store.model.NewIov;
import io.outpost.store.model.Node;
import io.outpost.store.model.PayloadSpec;
import io.outpost.store.model.ValidityKey;
import io.outpost.store.model.Versioning;
import io.outpost.store.testing.Backends;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.flywaydb.core.api.MigrationVersion;
import org.junit.jupiter.api.Test;

/**
 * Migration 3.1 on a real MariaDB: a database made by the earlier schema (every column utf8mb4_bin, PAD SPACE, where
 * 'ch0 ' finds ch0) is migrated, and then its names compare exactly, its data and unique keys unchanged.
 */
class ExactNameCollationTest {
    private static final long MAXK = ValidityKey.MAX;

    @Test
    void anOldMariaDbDatabaseIsMigratedAndThenComparesExactly() throws SQLException {
        DatabaseConfig config = Backends.MARIADB.freshConfig("old_collation");
        try (Database db = Database.open(config)) {
            SchemaManager schema = new SchemaManager(db);
            assertThat(schema.migrateTo(MigrationVersion.fromVersion("3"))).isEqualTo(3);
            IovStore store = new IovStore(db);
            Node sv = store.createFolder("/det/sv", Versioning.SINGLE_VERSION, KeyType.TIME, PayloadSpec.parse("v:Int32"),
                    "", true);
            Node f = store.createFolder("/det/f", Versioning.MULTI_VERSION, KeyType.TIME, PayloadSpec.parse("v:Int32"),
                    "", false);
            // the folder tables as the earlier schema made them: CHANNEL_NAME in the table's utf8mb4_bin
            execute(db, "ALTER TABLE " + sv.channelTable() + " MODIFY CHANNEL_NAME VARCHAR(255)");
            execute(db, "ALTER TABLE " + f.channelTable() + " MODIFY CHANNEL_NAME VARCHAR(255)");
            store.createChannel(sv, 0, "ch0", "");
            store.store(sv, List.of(new NewIov(0, 10, MAXK, 1)));
            store.store(f, List.of(new NewIov(0, 10, MAXK, 2)));
            store.tagCurrentHead(f, "T1", "");
            new GlobalTags(store).create("GT", "", Map.of("/det/f", "T1"));
            assertThat(nameColumnCollations(db)).as("before").allSatisfy(c -> assertThat(c).endsWith("utf8mb4_bin"));
            // what the issue found: PAD SPACE takes the padded spelling for the name
            assertThat(store.count(sv, 0, MAXK, ChannelSelection.named("ch0 "), null)).isOne();
            assertThat(store.tag("T1 ").name()).isEqualTo("T1");
            assertThat(store.node("/det ").path()).isEqualTo("/det");
            List<String> before = rows(db, sv, f);

            // 3.1 for these names, V5 (frozen global tags) and 5.1 for its names
            assertThat(schema.migrate()).isEqualTo(3);

            assertThat(nameColumnCollations(db)).as("after").hasSize(15)
                    .allSatisfy(c -> assertThat(c).endsWith(" " + MariaDbDialect.MARIADB_NAME_COLLATION));
            assertThat(outcome(() -> store.count(sv, 0, MAXK, ChannelSelection.named("ch0 "), null)))
                    .isEqualTo(StoreException.Kind.CHANNEL_NOT_FOUND);
            assertThat(outcome(() -> store.tag("T1 "))).isEqualTo(StoreException.Kind.TAG_NOT_FOUND);
            assertThat(outcome(() -> store.node("/det "))).isEqualTo(StoreException.Kind.FOLDER_NOT_FOUND);
            assertThat(outcome(() -> new GlobalTags(store).find("GT "))).isEqualTo(StoreException.Kind.TAG_NOT_FOUND);
            assertThat(store.count(sv, 0, MAXK, ChannelSelection.named("ch0"), null)).isOne();
            assertThat(store.count(f, 0, MAXK, ChannelSelection.all(), "GT")).isOne();
            assertThat(rows(db, sv, f)).as("the data is unchanged").isEqualTo(before);
            // the unique keys came through the change: an exact duplicate is still refused by the database itself
            assertThatThrownBy(() -> execute(db, "INSERT INTO " + sv.channelTable()
                    + " (CHANNEL_ID, LAST_OBJECT_ID, HAS_NEW_DATA, CHANNEL_NAME) VALUES (9, 0, 0, 'ch0')"))
                    .isInstanceOf(SQLException.class).hasMessageContaining("Duplicate entry");
            assertThatThrownBy(() -> execute(db, "INSERT INTO " + db.prefix() + "TAGS (NODE_ID, TAG_ID, TAG_NAME,"
                    + " TAG_LOCK_STATUS, TAG_TYPE) VALUES (0, 99, 'T1', 0, 0)"))
                    .isInstanceOf(SQLException.class).hasMessageContaining("Duplicate entry");
            assertThat(schema.migrate()).as("nothing left to apply").isZero();
        }
    }

    /** Every name column of the database as "TABLE.COLUMN collation". */
    private static List<String> nameColumnCollations(Database db) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection c = db.writePool().getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT TABLE_NAME, COLUMN_NAME, COLLATION_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA ="
                        + " DATABASE() AND COLUMN_NAME IN ('NODE_NAME', 'NODE_FULLPATH', 'TAG_NAME', 'CHANNEL_NAME',"
                        + " 'FOLDER_PATH', 'GLOBAL_TAG', 'FOLDER_TAG', 'NODE_PATH', 'SUBJECT', 'IDEMPOTENCY_KEY')"
                        + " AND TABLE_NAME <> '" + db.prefix() + "WRITE_AUDIT' OR TABLE_SCHEMA = DATABASE() AND"
                        + " TABLE_NAME = '" + db.prefix() + "WRITE_AUDIT' AND COLUMN_NAME IN ('NODE_PATH', 'TAG_NAME')"
                        + " ORDER BY TABLE_NAME, COLUMN_NAME")) {
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1) + "." + rs.getString(2) + " " + rs.getString(3));
                }
            }
            c.rollback();
        }
        return out;
    }

    private static List<String> rows(Database db, Node... folders) throws SQLException {
        List<String> out = new ArrayList<>();
        List<String> tables = new ArrayList<>(List.of(db.prefix() + "NODES", db.prefix() + "TAGS", db.prefix() + "TAG2TAG"));
        for (Node f : folders) {
            tables.addAll(List.of(f.channelTable(), f.iovTable()));
        }
        try (Connection c = db.writePool().getConnection(); Statement st = c.createStatement()) {
            for (String t : tables) {
                try (ResultSet rs = st.executeQuery("SELECT * FROM " + t + " ORDER BY 1, 2")) {
                    int n = rs.getMetaData().getColumnCount();
                    while (rs.next()) {
                        StringBuilder r = new StringBuilder(t);
                        for (int i = 1; i <= n; i++) {
                            r.append('|').append(rs.getString(i));
                        }
                        out.add(r.toString());
                    }
                }
            }
            c.rollback();
        }
        return out;
    }

    private static void execute(Database db, String sql) throws SQLException {
        try (Connection c = db.writePool().getConnection(); Statement st = c.createStatement()) {
            st.execute(sql);
            c.commit();
        }
    }

    private static StoreException.Kind outcome(Runnable call) {
        try {
            call.run();
            return null;
        } catch (StoreException e) {
            return e.kind();
        }
    }
}
