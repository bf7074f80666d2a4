package io.outpost.store.db;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.store.IovStore;
import io.outpost.store.model.KeyType;
import io.outpost.store.model.Node;
import io.outpost.store.model.PayloadSpec;
import io.outpost.store.model.Versioning;
import io.outpost.store.testing.Backends;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/** Which NO PAD collation a MySQL-family server gets for names, and that it is what a new folder's table uses. */
class NameCollationTest {

    @Test
    void mariaDbAndMySqlEachGetTheirNoPadBinaryCollation() {
        assertThat(MariaDbDialect.nameCollationOf("10.11.6-MariaDB-0+deb12u1")).isEqualTo("utf8mb4_nopad_bin");
        assertThat(MariaDbDialect.nameCollationOf("5.5.5-10.11.6-MariaDB")).isEqualTo("utf8mb4_nopad_bin");
        assertThat(MariaDbDialect.nameCollationOf("8.0.36")).isEqualTo("utf8mb4_0900_bin");
    }

    @Test
    void onARealMariaDbTheNameColumnsOfANewFolderDoNotPad() throws SQLException {
        try (IovStore store = Backends.MARIADB.freshStore("name_collation")) {
            Node f = store.createFolder("/C/f", Versioning.SINGLE_VERSION, KeyType.TIME, PayloadSpec.parse("v:Int32"), "",
                    true);
            try (Connection c = store.database().writePool().getConnection(); Statement st = c.createStatement()) {
                // the reason for it: utf8mb4_bin pads, the NO PAD collation does not
                try (ResultSet rs = st.executeQuery("SELECT 'ch0' = 'ch0 ' COLLATE utf8mb4_bin,"
                        + " 'ch0' = 'ch0 ' COLLATE utf8mb4_nopad_bin")) {
                    rs.next();
                    assertThat(rs.getInt(1)).isOne();
                    assertThat(rs.getInt(2)).isZero();
                }
                try (ResultSet rs = st.executeQuery("SELECT COLLATION_NAME FROM information_schema.COLUMNS WHERE"
                        + " TABLE_SCHEMA = DATABASE() AND TABLE_NAME = '" + f.channelTable() + "' AND COLUMN_NAME IN"
                        + " ('CHANNEL_NAME', 'DESCRIPTION') ORDER BY COLUMN_NAME")) {
                    rs.next();
                    assertThat(rs.getString(1)).as("CHANNEL_NAME").isEqualTo("utf8mb4_nopad_bin");
                    rs.next();
                    assertThat(rs.getString(1)).as("DESCRIPTION keeps the table's").isEqualTo("utf8mb4_bin");
                }
                c.rollback();
            }
        }
    }
}
