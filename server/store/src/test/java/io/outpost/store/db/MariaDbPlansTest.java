package io.outpost.store.db;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.store.IovStore;
import io.outpost.store.model.ChannelSelection;
import io.outpost.store.model.KeyType;
import io.outpost.store.model.NewIov;
import io.outpost.store.model.Node;
import io.outpost.store.model.PayloadSpec;
import io.outpost.store.model.Versioning;
import io.outpost.store.testing.Backends;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The MariaDB plans of the at-time, browse and count statements (docs/schema.md): no full scan of an IOV table, the
 * channels' bounds from a loose index scan, the rows by index; an at-time read without a sort. Checked with EXPLAIN
 * on folders of 40 channels × 300 IOVs, at the start, middle and end of the key range, for every kind of layer.
 */
class MariaDbPlansTest {
    private static final int CHANNELS = 40;
    private static final int PER_CHANNEL = 300;
    private static IovStore store;
    private static Node sv;
    private static Node mv;
    private static long tagId;

    @BeforeAll
    static void load() {
        store = Backends.MARIADB.freshStore("plans");
        sv = store.createFolder("/P/sv", Versioning.SINGLE_VERSION, KeyType.TIME, PayloadSpec.parse("x:Double"), "", true);
        mv = store.createFolder("/P/mv", Versioning.MULTI_VERSION, KeyType.TIME, PayloadSpec.parse("x:Double"), "", true);
        List<NewIov> rows = new ArrayList<>();
        for (int ch = 0; ch < CHANNELS; ch++) {
            for (int i = 0; i < PER_CHANNEL; i++) {
                rows.add(new NewIov(ch, i * 10L, i * 10L + 10, (double) i));
            }
        }
        store.store(sv, rows);
        store.store(mv, rows);
        tagId = store.tagCurrentHead(mv, "PLANS-T1", "").id();
        try (Connection c = store.database().writePool().getConnection(); var st = c.createStatement()) {
            st.execute("ANALYZE TABLE " + sv.iovTable() + ", " + mv.iovTable() + ", " + mv.iov2TagTable());
            c.commit();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @AfterAll
    static void close() {
        store.close();
    }

    @Test
    void atTimeReadsUseTheLooseIndexScanAndNoSort() throws SQLException {
        for (long t : new long[] {5, PER_CHANNEL * 5L + 5, PER_CHANNEL * 10L - 5}) {
            for (BrowseSpec spec : specs(t, t)) {
                List<String> plan = explain(spec, false);
                assertThat(plan).as("at %d: %s", t, plan).noneMatch(r -> r.contains("type=ALL"))
                        .noneMatch(r -> r.contains("filesort"))
                        .anyMatch(r -> r.contains("Using index for group-by"))
                        .anyMatch(r -> r.startsWith("I3 ") && r.contains("type=ref") && r.contains("B.LO"));
            }
        }
    }

    @Test
    void rangeReadsAndCountsScanOnlyPerChannelRanges() throws SQLException {
        for (long t : new long[] {5, PER_CHANNEL * 5L + 5}) {
            for (BrowseSpec spec : specs(t, t + 200)) {
                for (boolean count : new boolean[] {false, true}) {
                    List<String> plan = explain(spec, count);
                    assertThat(plan).as("%d..%d: %s", t, t + 200, plan)
                            .allMatch(r -> r.startsWith("<") // the UNION's own result rows
                                    || !r.contains("type=ALL") || r.contains("Range checked for each record"))
                            .anyMatch(r -> r.contains("Using index for group-by"))
                            .anyMatch(r -> r.contains("Range checked for each record"));
                }
            }
        }
    }

    /** The statements agree with what they plan: at-time gives one row per channel. */
    @Test
    void atTimeCountsOneRowPerChannel() {
        assertThat(store.count(sv, 1505, 1505, ChannelSelection.all(), null)).isEqualTo(CHANNELS);
        assertThat(store.count(mv, 1505, 1505 + 200, ChannelSelection.all(), "PLANS-T1")).isEqualTo(CHANNELS * 21L);
    }

    private static List<BrowseSpec> specs(long t1, long t2) {
        return List.of(new BrowseSpec(sv, Layer.SV, t1, t2, ChannelSelection.all(), false, true),
                new BrowseSpec(mv, Layer.HEAD, t1, t2, ChannelSelection.all(), false, true),
                new BrowseSpec(mv, Layer.standardTag(tagId), t1, t2, ChannelSelection.all(), false, true));
    }

    /** One line per EXPLAIN row: "table type=... key=... ref=... extra". */
    private static List<String> explain(BrowseSpec spec, boolean count) throws SQLException {
        Sql sql = store.database().dialect().browse(spec, count);
        List<String> rows = new ArrayList<>();
        try (Connection c = store.database().readPool().getConnection();
             PreparedStatement ps = c.prepareStatement("EXPLAIN " + sql.text())) {
            sql.bindTo(ps);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rows.add(rs.getString("table") + " type=" + rs.getString("type") + " key=" + rs.getString("key")
                            + " ref=" + rs.getString("ref") + " " + rs.getString("Extra"));
                }
            }
            c.rollback();
        }
        return rows;
    }
}
