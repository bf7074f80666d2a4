package io.outpost.frontier.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.store.db.Layer;
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

    private static List<CoolRead.Selected> of(String table, String... names) {
        return java.util.Arrays.stream(names).map(n -> new CoolRead.Selected(table, n)).toList();
    }

    private static CoolRead read(String sql) throws Exception {
        return CoolReads.recognise(PARSER.parseSelect(sql));
    }

    @Test
    void theAtTimeReadAsGridJobsSendIt() throws Exception {
        CoolRead r = read(atTime("I3.CHANNEL_ID, I3.IOV_SINCE, I3.IOV_UNTIL, I3.S", 1234, ""));
        assertThat(r).isEqualTo(new CoolRead(IOVS, Layer.SV, true, of(IOVS, "CHANNEL_ID", "IOV_SINCE", "IOV_UNTIL", "S"),
                1234, 1234, 1234, Long.MIN_VALUE, Long.MAX_VALUE));
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
        assertThat(r).isEqualTo(new CoolRead(IOVS, Layer.SV, false, of(IOVS, "IOV_SINCE", "S"), 5, 70, Long.MIN_VALUE,
                4, 9));
        assertThat(r.isAtTime()).isFalse();
    }

    /** Statements checked once per shape (literals masked) carry the read with the statement's own values. */
    @Test
    void aShapesReadTakesTheStatementsLiterals() throws Exception {
        String sql = atTime("I3.CHANNEL_ID, I3.S", 1234, " AND C2.CHANNEL_ID BETWEEN 3 AND 4");
        IntegerLiterals.Masked m = IntegerLiterals.mask(sql);
        CoolReadTemplate shape = CoolReads.template(PARSER.parseSelect(m.shape()));
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

    private static final String TAGS = "OUTPOST_F0001_IOV2TAG";

    /** COOL's read of a multi-version folder's HEAD or user tag: the layer filter in the main block and the probe. */
    static String userTag(String columns, long tag, long t, String more) {
        String layer = "USER_TAG_ID = " + tag + " AND ";
        return "SELECT " + columns + " FROM " + CHANNELS + " C2, " + IOVS + " I3 WHERE I3." + layer
                + "I3.NEW_HEAD_ID = 0 AND I3.CHANNEL_ID = C2.CHANNEL_ID AND I3.IOV_SINCE >= COALESCE((SELECT "
                + "MAX(I1.IOV_SINCE) FROM " + IOVS + " I1 WHERE I1." + layer + "I1.NEW_HEAD_ID = 0 AND I1.CHANNEL_ID = "
                + "C2.CHANNEL_ID AND I1.IOV_SINCE <= " + t + "), " + t + ") AND I3.IOV_SINCE <= " + t
                + " AND I3.IOV_UNTIL > " + t + more + " ORDER BY I3.CHANNEL_ID, I3.IOV_SINCE";
    }

    /** COOL's read of a standard tag: the tag table's rows, the payload from the IOV table joined on OBJECT_ID. */
    static String standardTag(String columns, long tag, long t, String more) {
        return "SELECT " + columns + " FROM " + CHANNELS + " C2, " + TAGS + " I3, " + IOVS + " I4 WHERE I3.TAG_ID = "
                + tag + " AND I3.CHANNEL_ID = C2.CHANNEL_ID AND I3.IOV_SINCE >= COALESCE((SELECT MAX(I1.IOV_SINCE) FROM "
                + TAGS + " I1 WHERE I1.TAG_ID = " + tag + " AND I1.CHANNEL_ID = C2.CHANNEL_ID AND I1.IOV_SINCE <= " + t
                + "), " + t + ") AND I3.IOV_SINCE <= " + t + " AND I3.IOV_UNTIL > " + t
                + " AND I4.OBJECT_ID = I3.OBJECT_ID" + more + " ORDER BY I3.CHANNEL_ID, I3.IOV_SINCE";
    }

    @Test
    void theHeadAndUserTagsOfAMultiVersionFolder() throws Exception {
        CoolRead head = read(userTag("I3.CHANNEL_ID, I3.IOV_SINCE, I3.S", 0, 50, ""));
        assertThat(head).isEqualTo(new CoolRead(IOVS, Layer.HEAD, true, of(IOVS, "CHANNEL_ID", "IOV_SINCE", "S"), 50, 50,
                50, Long.MIN_VALUE, Long.MAX_VALUE));
        assertThat(read(userTag("I3.S", 17, 50, " AND C2.CHANNEL_ID = 3")).layer()).isEqualTo(Layer.userTag(17));
        // the filters in another order, the probe's the other way round
        String reordered = userTag("I3.S", 17, 50, "").replace("I3.USER_TAG_ID = 17 AND I3.NEW_HEAD_ID = 0",
                "I3.NEW_HEAD_ID = 0 AND I3.USER_TAG_ID = 17").replace("I1.USER_TAG_ID = 17 AND I1.NEW_HEAD_ID = 0 AND "
                + "I1.CHANNEL_ID = C2.CHANNEL_ID", "I1.CHANNEL_ID = C2.CHANNEL_ID AND I1.NEW_HEAD_ID = 0 AND "
                + "I1.USER_TAG_ID = 17");
        assertThat(read(reordered).layer()).isEqualTo(Layer.userTag(17));
    }

    @Test
    void aStandardTagWithItsObjectsJoined() throws Exception {
        CoolRead r = read(standardTag("I4.CHANNEL_ID, I4.IOV_SINCE, I3.IOV_UNTIL, I4.S", 9, 70, ""));
        assertThat(r).isEqualTo(new CoolRead(IOVS, Layer.standardTag(9), true, List.of(
                new CoolRead.Selected(IOVS, "CHANNEL_ID"), new CoolRead.Selected(IOVS, "IOV_SINCE"),
                new CoolRead.Selected(TAGS, "IOV_UNTIL"), new CoolRead.Selected(IOVS, "S")), 70, 70, 70,
                Long.MIN_VALUE, Long.MAX_VALUE));
        assertThat(r.columns().get(2).ofTagTable()).isTrue();
        assertThat(r.headerKey()).isNotEqualTo(read(standardTag("I3.CHANNEL_ID, I4.IOV_SINCE, I3.IOV_UNTIL, I4.S", 9,
                70, "")).headerKey());
        // the tag table alone, without the channel table or the objects
        String alone = "SELECT I3.CHANNEL_ID, I3.IOV_SINCE FROM " + TAGS + " I3 WHERE I3.TAG_ID = 4 AND I3.IOV_SINCE >= "
                + "COALESCE((SELECT MAX(I1.IOV_SINCE) FROM " + TAGS + " I1 WHERE I1.TAG_ID = 4 AND I1.CHANNEL_ID = "
                + "I3.CHANNEL_ID AND I1.IOV_SINCE <= 3), 3) ORDER BY I3.CHANNEL_ID, I3.IOV_SINCE";
        assertThat(read(alone)).isEqualTo(new CoolRead(IOVS, Layer.standardTag(4), false,
                of(TAGS, "CHANNEL_ID", "IOV_SINCE"), 3, Long.MAX_VALUE, Long.MIN_VALUE, Long.MIN_VALUE, Long.MAX_VALUE));
        // the tables in another order
        String order = standardTag("I4.S", 9, 70, "").replace("FROM " + CHANNELS + " C2, " + TAGS + " I3, " + IOVS
                + " I4", "FROM " + IOVS + " I4, " + TAGS + " I3, " + CHANNELS + " C2");
        assertThat(read(order).layer()).isEqualTo(Layer.standardTag(9));
    }

    /** The layer's ids and NEW_HEAD_ID's 0 are literals too: a shape carries them, and checks them, per statement. */
    @Test
    void layerIdsAreTheStatementsLiterals() throws Exception {
        for (String sql : List.of(userTag("I3.S", 5, 1234, ""), standardTag("I4.S", 5, 1234, ""))) {
            IntegerLiterals.Masked m = IntegerLiterals.mask(sql);
            CoolReadTemplate shape = CoolReads.template(PARSER.parseSelect(m.shape()));
            assertThat(shape.withLiterals(m.literals()).read()).isEqualTo(read(sql)).isNotNull();
            String other = sql.replace(" = 5 AND", " = 6 AND");
            assertThat(IntegerLiterals.mask(other).shape()).isEqualTo(m.shape());
            assertThat(shape.withLiterals(IntegerLiterals.mask(other).literals()).read().layer().id()).isEqualTo(6);
            // the probe's layer another than the main block's: not COOL's read
            String mixed = sql.replaceFirst(" = 5 AND", " = 6 AND");
            assertThat(IntegerLiterals.mask(mixed).shape()).isEqualTo(m.shape());
            assertThat(shape.withLiterals(IntegerLiterals.mask(mixed).literals()).read()).isNull();
            assertThat(read(mixed)).isNull();
        }
        // hidden rows (NEW_HEAD_ID another than 0), in the main block or the probe
        String head = userTag("I3.S", 0, 1234, "");
        CoolReadTemplate shape = CoolReads.template(PARSER.parseSelect(IntegerLiterals.mask(head).shape()));
        for (String hidden : List.of(head.replace("I3.NEW_HEAD_ID = 0", "I3.NEW_HEAD_ID = 8"),
                head.replace("I1.NEW_HEAD_ID = 0", "I1.NEW_HEAD_ID = 8"))) {
            assertThat(shape.withLiterals(IntegerLiterals.mask(hidden).literals()).read()).isNull();
            assertThat(read(hidden)).isNull();
        }
    }

    @Test
    void otherLayerFiltersAreNotRecognised() throws Exception {
        String head = userTag("I3.S", 0, 9, "");
        assertThat(read(head)).isNotNull();
        // a filter missing from the main block, from the probe, or given twice
        assertThat(read(head.replace("I3.NEW_HEAD_ID = 0 AND ", ""))).isNull();
        assertThat(read(head.replace("I3.USER_TAG_ID = 0 AND ", ""))).isNull();
        assertThat(read(head.replace("I1.NEW_HEAD_ID = 0 AND ", ""))).isNull();
        assertThat(read(head.replace("I1.USER_TAG_ID = 0 AND ", ""))).isNull();
        assertThat(read(head.replace("I3.NEW_HEAD_ID = 0 AND ", "I3.NEW_HEAD_ID = 0 AND I3.NEW_HEAD_ID = 0 AND "))).isNull();
        assertThat(read(head.replace("I3.USER_TAG_ID = 0", "I3.USER_TAG_ID >= 0"))).isNull();
        assertThat(read(head.replace("I3.USER_TAG_ID = 0", "I3.USER_TAG_ID = -1"))).isNull();
        assertThat(read(head.replace("I3.USER_TAG_ID = 0", "0 = I3.USER_TAG_ID"))).isNull();
        // the tag table's filter on the IOV table, and the other way round
        assertThat(read(head.replace("USER_TAG_ID", "TAG_ID"))).isNull();
        String tag = standardTag("I4.S", 3, 9, "");
        assertThat(read(tag)).isNotNull();
        assertThat(read(tag.replace("I3.TAG_ID = 3", "I3.USER_TAG_ID = 3"))).isNull();
        assertThat(read(tag.replace("I1.TAG_ID = 3 AND ", ""))).isNull();
        assertThat(read(tag.replace("I3.TAG_ID = 3 AND ", ""))).isNull();
        assertThat(read(tag.replace("I3.TAG_ID = 3", "I3.TAG_ID = 0").replace("I1.TAG_ID = 3", "I1.TAG_ID = 0"))).isNull();
        // the objects not joined, joined on something else, another folder's, a condition or ORDER BY on them
        assertThat(read(tag.replace(" AND I4.OBJECT_ID = I3.OBJECT_ID", ""))).isNull();
        assertThat(read(tag.replace("I4.OBJECT_ID = I3.OBJECT_ID", "I4.OBJECT_ID = I3.CHANNEL_ID"))).isNull();
        assertThat(read(tag.replace(IOVS + " I4", "OUTPOST_F0002_IOVS I4"))).isNull();
        assertThat(read(standardTag("I4.S", 3, 9, " AND I4.NEW_HEAD_ID = 0"))).isNull();
        assertThat(read(standardTag("I4.S", 3, 9, " AND I4.CHANNEL_ID = 2"))).isNull();
        assertThat(read(tag.replace("ORDER BY I3.CHANNEL_ID", "ORDER BY I4.CHANNEL_ID"))).isNull();
        // objects beside the IOV table, an unqualified column among several tables, a probe over the other table
        assertThat(read(head.replace(IOVS + " I3 WHERE", IOVS + " I3, " + IOVS + " I4 WHERE"))).isNull();
        assertThat(read(standardTag("S", 3, 9, ""))).isNull();
        assertThat(read(tag.replace("FROM " + TAGS + " I1", "FROM " + IOVS + " I1"))).isNull();
    }
}
