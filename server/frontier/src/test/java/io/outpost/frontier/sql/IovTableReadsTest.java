package io.outpost.frontier.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.ExecutorService;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

class IovTableReadsTest {
    /** Parses on threads of this test class, shut down after it. */
    @AutoClose
    private static final ExecutorService THREADS = SqlParser.newThreads();
    private static final SqlParser PARSER = new SqlParser(THREADS);
    private static final String T = "OUTPOST_F0001_IOVS";

    private static IovTableReads.Read only(String sql, String... binds) throws Exception {
        List<IovTableReads.Read> reads = IovTableReads.of(PARSER.parseSelect(sql), List.of(binds));
        assertThat(reads).hasSize(1);
        return reads.get(0);
    }

    @Test
    void atTimeAndBrowseBoundsGiveTheKeyWindow() throws Exception {
        IovTableReads.Read r = only("SELECT * FROM " + T + " I3 WHERE I3.IOV_SINCE <= 50 AND I3.IOV_UNTIL > 20");
        assertThat(r.from()).isEqualTo(20);
        assertThat(r.to()).isEqualTo(50);
        r = only("SELECT * FROM \"" + T + "\" WHERE 20 < IOV_UNTIL AND (IOV_SINCE < 51 AND USER_TAG_ID = 0)");
        assertThat(r.from()).isEqualTo(20);
        assertThat(r.to()).isEqualTo(50);
        assertThat(r.userTagId()).isZero();
        r = only("SELECT * FROM \"ATLAS\".\"" + T + "\" I3 WHERE \"" + T + "\".\"IOV_SINCE\" <= 50 AND I3.IOV_UNTIL > 20");
        assertThat(r.from()).isEqualTo(20);
        assertThat(r.to()).isEqualTo(50);
        r = only("SELECT * FROM " + T + " WHERE IOV_SINCE BETWEEN 7 AND 9 AND IOV_UNTIL <= 12");
        assertThat(r.from()).isEqualTo(7);
        assertThat(r.to()).isEqualTo(9);
    }

    @Test
    void questionMarkBindsAreReadInOrder() throws Exception {
        IovTableReads.Read r = only("SELECT * FROM " + T + " WHERE CHANNEL_ID = ? AND IOV_SINCE <= ? AND IOV_UNTIL > ?",
                "3", "90", "-1");
        assertThat(r.to()).isEqualTo(90);
        assertThat(r.from()).isEqualTo(-1);
    }

    @Test
    void conditionsUnderOrOrOnOtherTablesFixNothing() throws Exception {
        IovTableReads.Read r = only("SELECT * FROM " + T + " I, OUTPOST_F0001_CHANNELS C WHERE (I.IOV_SINCE <= 5 OR "
                + "I.IOV_UNTIL > 3) AND C.IOV_SINCE > 100 AND NOT I.IOV_UNTIL > 7");
        assertThat(r.from()).isNull();
        assertThat(r.to()).isNull();
    }

    @Test
    void coolsMaxProbeIsRecognisedOnlyNested() throws Exception {
        List<IovTableReads.Read> reads = IovTableReads.of(PARSER.parseSelect("SELECT I3.IOV_SINCE FROM " + T + " I3 WHERE "
                + "I3.IOV_SINCE >= COALESCE((SELECT MAX(I1.IOV_SINCE) FROM " + T + " I1 WHERE I1.CHANNEL_ID = I3.CHANNEL_ID"
                + " AND I1.IOV_SINCE <= 10), 10) AND I3.IOV_SINCE <= 20 AND I3.IOV_UNTIL > 10"), List.of());
        assertThat(reads).extracting(IovTableReads.Read::sinceProbe).containsExactly(false, true);
        assertThat(reads.get(1).to()).isEqualTo(10);
        assertThat(only("SELECT MAX(IOV_SINCE) FROM " + T + " WHERE IOV_SINCE <= 10").sinceProbe()).isFalse();
    }
}
