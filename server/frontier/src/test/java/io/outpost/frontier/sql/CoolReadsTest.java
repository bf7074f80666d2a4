package io.outpost.frontier.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.ExecutorService;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

class CoolReadsTest {
    @AutoClose
    private static final ExecutorService THREADS = SqlParser.newThreads();
    private static final SqlParser PARSER = new SqlParser(THREADS);
    private static final String IOVS = "OUTPOST_F0001_IOVS";
    private static final String CHANNELS = "OUTPOST_F0001_CHANNELS";

    /** GridCoolJob's at-time read, as CORAL's FrontierAccess sends COOL's single-version read. */
    static String atTime(String columns, long t, String more) {
        return "SELECT /*+ QB_NAME(MAIN) */ " + columns + " FROM " + CHANNELS + " C2, " + IOVS + " I3 WHERE "
                + "I3.CHANNEL_ID = C2.CHANNEL_ID AND I3.IOV_SINCE >= COALESCE((SELECT /*+ QB_NAME(MAX1) */ "
                + "MAX(I1.IOV_SINCE) FROM " + IOVS + " I1 WHERE I1.CHANNEL_ID = C2.CHANNEL_ID AND I1.IOV_SINCE <= " + t
                + "), " + t + ") AND I3.IOV_SINCE <= " + t + " AND I3.IOV_UNTIL > " + t + more
                + " ORDER BY I3.CHANNEL_ID, I3.IOV_SINCE";
    }

    private static CoolRead read(String sql) throws Exception {
        return CoolReads.recognise(PARSER.parseSelect(sql));
    }

    @Test
    void theAtTimeReadAsGridJobsSendIt() throws Exception {
        CoolRead r = read(atTime("I3.CHANNEL_ID, I3.IOV_SINCE, I3.IOV_UNTIL, I3.S", 1234, ""));
        assertThat(r).isEqualTo(new CoolRead(IOVS, true, List.of("CHANNEL_ID", "IOV_SINCE", "IOV_UNTIL", "S"), 1234,
                1234, 1234, Long.MIN_VALUE, Long.MAX_VALUE));
        assertThat(r.isAtTime()).isTrue();
        assertThat(r.allChannels()).isTrue();
    }

    @Test
    void quotedNamesSchemaAndChannelSelections() throws Exception {
        String sql = "SELECT \"I3\".\"IOV_SINCE\", \"I3\".\"S\" FROM \"OUTPOST\".\"" + IOVS + "\" \"I3\" WHERE "
                + "\"I3\".\"CHANNEL_ID\" BETWEEN 3 AND 9 AND \"I3\".\"IOV_SINCE\" >= COALESCE((SELECT MAX(\"I1\".\"IOV_SINCE\") "
                + "FROM \"OUTPOST\".\"" + IOVS + "\" \"I1\" WHERE \"I1\".\"IOV_SINCE\" <= 5 AND \"I1\".\"CHANNEL_ID\" = "
                + "\"I3\".\"CHANNEL_ID\"), 5) AND \"I3\".\"IOV_SINCE\" <= 70 AND \"I3\".\"CHANNEL_ID\" >= 4 "
                + "ORDER BY \"I3\".\"CHANNEL_ID\" ASC, \"I3\".\"IOV_SINCE\"";
        CoolRead r = read(sql);
        assertThat(r).isEqualTo(new CoolRead(IOVS, false, List.of("IOV_SINCE", "S"), 5, 70, Long.MIN_VALUE, 4, 9));
        assertThat(r.isAtTime()).isFalse();
    }

    /** Statements checked once per shape (literals masked) carry the read with the statement's own values. */
    @Test
    void aShapesReadTakesTheStatementsLiterals() throws Exception {
        String sql = atTime("I3.CHANNEL_ID, I3.S", 1234, " AND C2.CHANNEL_ID BETWEEN 3 AND 4");
        IntegerLiterals.Masked m = IntegerLiterals.mask(sql);
        CoolReads.Template shape = CoolReads.template(PARSER.parseSelect(m.shape()));
        assertThat(shape.withLiterals(m.literals()).read()).isEqualTo(read(sql)).isNotNull();
        // the same shape whose probe and default keys differ is not COOL's read
        String other = sql.replace("), 1234)", "), 1235)");
        IntegerLiterals.Masked o = IntegerLiterals.mask(other);
        assertThat(o.shape()).isEqualTo(m.shape());
        assertThat(shape.withLiterals(o.literals()).read()).isNull();
        assertThat(read(other)).isNull();
    }

    @Test
    void anythingElseIsNotRecognised() throws Exception {
        String columns = "I3.CHANNEL_ID, I3.S";
        assertThat(read(atTime(columns, 7, ""))).isNotNull();
        // another order, a descending one, a condition COOL does not write, a function, an alias, a probe of another key
        assertThat(read(atTime(columns, 7, "").replace("ORDER BY I3.CHANNEL_ID, I3.IOV_SINCE", "ORDER BY I3.IOV_SINCE"))).isNull();
        assertThat(read(atTime(columns, 7, "") + " DESC")).isNull();
        assertThat(read(atTime(columns, 7, " AND I3.S = 'x'"))).isNull();
        assertThat(read(atTime(columns, 7, " OR I3.CHANNEL_ID = 1"))).isNull();
        assertThat(read(atTime("NVL(I3.S, 'none') AS S", 7, ""))).isNull();
        assertThat(read(atTime("I3.S AS T", 7, ""))).isNull();
        assertThat(read(atTime("I3.*", 7, ""))).isNull();
        assertThat(read(atTime("C2.CHANNEL_NAME", 7, ""))).isNull();
        assertThat(read(atTime(columns, 7, "").replace("<= 7), 7)", "<= 7), 8)"))).isNull();
        assertThat(read(atTime(columns, 7, "").replace("I3.CHANNEL_ID = C2.CHANNEL_ID AND ", ""))).isNull();
        assertThat(read(atTime(columns, 7, "").replace("SELECT /*+ QB_NAME(MAIN) */", "SELECT DISTINCT"))).isNull();
        assertThat(read(atTime(columns, 7, " AND I3.IOV_SINCE <= 99999999999999999999"))).isNull();
        assertThat(read("SELECT I3.CHANNEL_ID FROM " + IOVS + " I3 ORDER BY I3.CHANNEL_ID, I3.IOV_SINCE")).isNull();
        assertThat(read("SELECT I3.CHANNEL_ID FROM OUTPOST_F0002_CHANNELS C2, " + IOVS + " I3 WHERE I3.CHANNEL_ID = "
                + "C2.CHANNEL_ID AND I3.IOV_SINCE >= COALESCE((SELECT MAX(I1.IOV_SINCE) FROM " + IOVS + " I1 WHERE "
                + "I1.CHANNEL_ID = C2.CHANNEL_ID AND I1.IOV_SINCE <= 1), 1) ORDER BY I3.CHANNEL_ID, I3.IOV_SINCE"))
                .as("another folder's channel table").isNull();
    }
}
