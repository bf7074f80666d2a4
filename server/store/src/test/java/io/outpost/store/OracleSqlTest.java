package io.outpost.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.store.db.BrowseSpec;
import io.outpost.store.db.Layer;
import io.outpost.store.db.OracleDialect;
import io.outpost.store.db.Sql;
import io.outpost.store.model.ChannelSelection;
import io.outpost.store.model.KeyType;
import io.outpost.store.model.Node;
import io.outpost.store.model.PayloadSpec;
import io.outpost.store.model.Versioning;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Pins the SQL Outpost sends to Oracle: COOL's COALESCE/MAX form with the hints that fix the plan. A change here
 * must be deliberate (and re-checked on a real Oracle, see OracleStoreIT).
 */
class OracleSqlTest {
    private static final Node FOLDER = new Node(7, 0L, "f", "/f", "", true, Versioning.MULTI_VERSION, KeyType.TIME,
            PayloadSpec.parse("x:Int32"), "CONDDB_F0007", "");

    @Test
    void singleVersionBrowseOfOneChannelRange() {
        Node sv = new Node(7, 0L, "f", "/f", "", true, Versioning.SINGLE_VERSION, KeyType.TIME,
                PayloadSpec.parse("x:Int32"), "CONDDB_F0007", "");
        Sql sql = new OracleDialect().browse(new BrowseSpec(sv, Layer.SV, 10, 20, ChannelSelection.range(3, 5), false, true),
                false);
        assertThat(sql.text()).isEqualTo("SELECT /*+ NO_BIND_AWARE QB_NAME(MAIN) INDEX(@MAIN I3@MAIN (CHANNEL_ID IOV_SINCE "
                + "IOV_UNTIL)) LEADING(@MAIN C2@MAIN I3@MAIN) USE_NL(@MAIN I3@MAIN) INDEX(@MAX1 I1@MAX1 (CHANNEL_ID IOV_SINCE "
                + "IOV_UNTIL)) OPT_PARAM('OPTIMIZER_ADAPTIVE_FEATURES','FALSE') */ I3.OBJECT_ID, I3.CHANNEL_ID, I3.IOV_SINCE, "
                + "I3.IOV_UNTIL, I3.SYS_INSTIME, I3.X FROM CONDDB_F0007_CHANNELS C2, CONDDB_F0007_IOVS I3 WHERE "
                + "I3.CHANNEL_ID = C2.CHANNEL_ID AND ((C2.CHANNEL_ID >= ? AND C2.CHANNEL_ID <= ?)) AND I3.IOV_SINCE >= "
                + "COALESCE((SELECT /*+ QB_NAME(MAX1) */ MAX(I1.IOV_SINCE) FROM CONDDB_F0007_IOVS I1 WHERE I1.CHANNEL_ID = "
                + "C2.CHANNEL_ID AND I1.IOV_SINCE <= ?), ?) AND I3.IOV_SINCE <= ? AND I3.IOV_UNTIL > ? "
                + "ORDER BY I3.CHANNEL_ID, I3.IOV_SINCE");
        assertThat(sql.binds()).containsExactly(3L, 5L, 10L, 10L, 20L, 10L);
    }

    @Test
    void headLayerUsesTheFiveColumnIndexAndFiltersBothBlocks() {
        Sql sql = new OracleDialect().browse(new BrowseSpec(FOLDER, Layer.HEAD, 1, 2, ChannelSelection.all(), false, true), false);
        assertThat(sql.text())
                .contains("INDEX_RS_ASC(@MAIN I3@MAIN (USER_TAG_ID NEW_HEAD_ID CHANNEL_ID IOV_SINCE IOV_UNTIL))")
                .contains("AND I3.USER_TAG_ID = ? AND I3.NEW_HEAD_ID = 0")
                .contains("AND I1.USER_TAG_ID = ? AND I1.NEW_HEAD_ID = 0");
        assertThat(sql.binds()).containsExactly(0L, 0L, 1L, 1L, 2L, 1L);
    }

    @Test
    void standardTagReadsIov2TagAndJoinsThePayloadRow() {
        Sql sql = new OracleDialect().browse(new BrowseSpec(FOLDER, Layer.standardTag(42), 1, 2, ChannelSelection.all(),
                false, true), true);
        assertThat(sql.text())
                .startsWith("SELECT COUNT(*) FROM (SELECT /*+ NO_BIND_AWARE")
                .contains("FROM CONDDB_F0007_CHANNELS C2, CONDDB_F0007_IOV2TAG I3, CONDDB_F0007_IOVS I4")
                .contains("LEADING(@MAIN C2@MAIN I3@MAIN I4@MAIN)")
                .contains("I4.SYS_INSTIME, I4.X")
                .contains("AND I4.OBJECT_ID = I3.OBJECT_ID")
                .endsWith(") S");
        assertThat(sql.binds()).isEqualTo(List.of(42L, 42L, 1L, 1L, 2L, 1L));
    }
}
