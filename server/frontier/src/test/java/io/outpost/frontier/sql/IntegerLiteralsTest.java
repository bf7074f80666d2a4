package io.outpost.frontier.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.frontier.protocol.FrontierException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * Statements checked through their shape (integer literals masked) get exactly the verdict and SQL of a full check,
 * whatever other statement of the same shape was checked first: a differential test over COOL's query shapes,
 * lexing corner cases and the SQL fuzz corpus, on all three targets.
 */
public class IntegerLiteralsTest {
    /** Parses on threads of this test class, shut down after it. */
    @AutoClose
    private static final ExecutorService THREADS = SqlParser.newThreads();
    private static final SqlParser PARSER = new SqlParser(THREADS);
    private static final String[] STATEMENTS = {
        "SELECT CHANNEL_ID, IOV_SINCE, IOV_UNTIL, S FROM OUTPOST_F0001_IOVS WHERE IOV_SINCE <= 1234 AND IOV_UNTIL > 1234 ORDER BY CHANNEL_ID",
        "select * from OUTPOST_F0002_IOVS where CHANNEL_ID in (1, 2, 3) and IOV_SINCE<=7 and IOV_UNTIL>7",
        "SELECT COUNT(*) FROM OUTPOST_F0001_IOVS WHERE IOV_SINCE < 5000000000 AND IOV_UNTIL > 0 AND NEW_HEAD_ID = 0",
        "SELECT * FROM (SELECT CHANNEL_ID FROM OUTPOST_F0001_IOVS WHERE IOV_SINCE <= 10 ORDER BY IOV_SINCE DESC) WHERE ROWNUM <= 1",
        "SELECT * FROM (SELECT CHANNEL_ID FROM OUTPOST_F0001_IOVS WHERE IOV_SINCE <= 10) WHERE ROWNUM < 3",
        "SELECT CHANNEL_ID FROM OUTPOST_F0001_IOVS WHERE IOV_SINCE <= 10 LIMIT 5",
        "SELECT CHANNEL_ID FROM OUTPOST_F0001_IOVS WHERE IOV_SINCE <= 10 FETCH FIRST 5 ROWS ONLY",
        "SELECT CHANNEL_ID FROM OUTPOST_F0001_IOVS WHERE IOV_SINCE <= -10 AND IOV_UNTIL > 1.5 AND CHANNEL_ID <> 1e3",
        "SELECT CHANNEL_ID, 'at 1234' AS NOTE FROM OUTPOST_F0001_IOVS WHERE S = 'x''99' AND IOV_SINCE <= 99",
        "SELECT \"CHANNEL_ID\" FROM OUTPOST_F0001_IOVS WHERE IOV_SINCE <= 3 -- after 3\n AND IOV_UNTIL > 3 /* 42 */",
        "SELECT CHANNEL_ID FROM OUTPOST_F0001_IOVS WHERE IOV_SINCE <= 3 AND S = '12345678901234567890'",
        "SELECT CHANNEL_ID FROM OUTPOST_F0001_IOVS WHERE IOV_SINCE <= 9170000000000000000",
        "SELECT CHANNEL_ID FROM OUTPOST_F0001_IOVS WHERE IOV_SINCE <= 123456789012345678901",
        "SELECT CHANNEL_ID FROM OUTPOST_F0001_IOVS WHERE IOV_SINCE <= 0x1F",
        "SELECT CHANNEL_ID FROM OUTPOST_F0001_IOVS WHERE IOV_SINCE <= 5 AND S = 'unterminated",
        "SELECT CHANNEL_ID + 1, SUBSTR(S, 2, 3), TO_CHAR(IOV_SINCE) FROM OUTPOST_F0001_IOVS WHERE MOD(CHANNEL_ID, 2) = 0",
        "SELECT CHANNEL_ID FROM OUTPOST_F0001_IOVS WHERE IOV_SINCE <= 5 UNION SELECT CHANNEL_ID FROM OUTPOST_F0002_IOVS WHERE IOV_SINCE <= 6",
        "SELECT a.CHANNEL_ID FROM OUTPOST_F0001_IOVS a, OUTPOST_F0001_PAYLOAD b WHERE a.PAYLOAD_ID = b.PAYLOAD_ID AND a.IOV_SINCE <= 8",
        "SELECT 1 FROM DUAL",
        "select 1 from dual",
        "DELETE FROM OUTPOST_F0001_IOVS WHERE CHANNEL_ID = 1",
        "SELECT CHANNEL_ID FROM OUTPOST_F0001_IOVS WHERE CHANNEL_ID = 1; DROP TABLE X",
        "SELECT CHANNEL_ID FROM NOT_A_TABLE WHERE CHANNEL_ID = 1",
        "SELECT CHANNEL_ID FROM OUTPOST_F0001_IOVS WHERE CHANNEL_ID = ?",
        "SELECT CHANNEL_ID FROM OUTPOST_F0001_IOVS WHERE CHANNEL_ID = :1 AND IOV_SINCE <= 4",
        "SELECT CHANNEL_ID FROM OUTPOST_F0001_IOVS WHERE CHANNEL_ID = $1 AND IOV_SINCE <= 4",
        "SELECT CHANNEL_ID FROM ATLAS_COOLOFL.OUTPOST_F0001_IOVS WHERE IOV_SINCE <= 4",
        "SELECT TABLE_NAME FROM ALL_TABLES WHERE OWNER = 'ATLAS_COOLOFL' AND ROWNUM <= 2",
        "SELECT COLUMN_NAME, DATA_LENGTH FROM ALL_TAB_COLUMNS WHERE TABLE_NAME = 'OUTPOST_F0001_IOVS' AND COLUMN_ID > 1",
        "SELECT CHANNEL_ID FROM OUTPOST_F0001_IOVS WHERE IOV_SINCE <= 4 AND [CHANNEL_ID] = 2",
        "SELECT CHANNEL_ID FROM OUTPOST_F0001_IOVS WHERE IOV_SINCE <= 4 AND `S` = 2",
        "SELECT CHANNEL_ID FROM OUTPOST_F0001_IOVS WHERE IOV_SINCE <= 4 AND S = E'it\\'s 5'",
        "SELECT CHANNEL_ID FROM OUTPOST_F0001_IOVS WHERE IOV_SINCE BETWEEN 4 AND 9 ORDER BY 1",
        "SELECT CAST(CHANNEL_ID AS NUMBER(10)) FROM OUTPOST_F0001_IOVS WHERE IOV_SINCE <= 4",
        "SELECT CHANNEL_ID FROM OUTPOST_F0001_IOVS WHERE IOV_SINCE <= .5 AND IOV_UNTIL > 5.",
    };

    private static final SqlGuard[] GUARDS = {
        new SqlGuard("OUTPOST_", "ATLAS_COOLOFL", FrontierDialects.POSTGRESQL, PARSER),
        new SqlGuard("OUTPOST_", "ATLAS_COOLOFL", FrontierDialects.ORACLE, PARSER),
        new SqlGuard("OUTPOST_", null, FrontierDialects.SQLITE, PARSER),
    };

    private static final Pattern INTEGER = Pattern.compile("(?<![\\w.$#])\\d{1,9}(?![\\w.])");

    @Test
    void aStatementCheckedThroughItsShapeGetsTheFullChecksVerdict() throws Exception {
        List<String> statements = new ArrayList<>(List.of(STATEMENTS));
        statements.addAll(corpus());
        Random random = new Random(17);
        int viaShape = 0;
        for (SqlGuard guard : GUARDS) {
            for (String sql : statements) {
                for (int round = 0; round < 3; round++) {
                    CheckedStatements statementsChecked = new CheckedStatements(guard::check);
                    // another statement of the same shape first, so the second is served by the shape's verdict
                    verdict(statementsChecked, renumbered(sql, random));
                    String expected = verdict(guard, sql);
                    assertThat(verdict(statementsChecked, sql)).as("%s on %s", sql, guard).isEqualTo(expected);
                    viaShape += (int) statementsChecked.byShapes();
                }
            }
        }
        assertThat(viaShape).as("statements served through a shape").isGreaterThan(100);
    }

    @Test
    void maskAndRestoreRoundTripAndRefuseWhatTheyCannotCarry() {
        String sql = "SELECT CHANNEL_ID FROM OUTPOST_F0001_IOVS WHERE IOV_SINCE <= 1234 AND S = 'a 5' AND IOV_UNTIL > 1234";
        IntegerLiterals.Masked m = IntegerLiterals.mask(sql);
        assertThat(m.literals()).containsExactly("1234", "1234");
        assertThat(m.shape()).doesNotContain("1234").contains("OUTPOST_F0001_IOVS", "'a 5'");
        assertThat(IntegerLiterals.restore(m.shape(), m.literals())).isEqualTo(sql);
        String s0 = m.shape().substring(m.shape().indexOf("<= ") + 3, m.shape().indexOf(" AND"));
        assertThat(IntegerLiterals.restore(m.shape().replace(s0, "5"), m.literals())).as("a sentinel lost").isNull();
        assertThat(IntegerLiterals.restore(m.shape() + " LIMIT 9169999999999999999", m.literals()))
                .as("a number made from a sentinel").isNull();
        assertThat(IntegerLiterals.mask("SELECT 1 FROM T WHERE S = '9170000000000000000'")).isNull();
        assertThat(IntegerLiterals.mask("SELECT X FROM T")).isNull();
        assertThat(IntegerLiterals.mask("SELECT X FROM T WHERE S = 'open 5")).isNull();
        assertThat(IntegerLiterals.mask("SELECT X FROM T /* 5")).isNull();
    }

    @Test
    void shapeKeysMaskLiteralsOfAnyLengthAndKeepStringsAsTheyAre() {
        String cool = "SELECT S FROM T WHERE IOV_SINCE <= 1700000000000000001 AND IOV_UNTIL > 1700000000000000001";
        IntegerLiterals.Masked m = IntegerLiterals.mask(cool);
        assertThat(m.literals()).as("19-digit keys are literals like any other").containsExactly(
                "1700000000000000001", "1700000000000000001");
        assertThat(IntegerLiterals.restore(m.shape(), m.literals())).isEqualTo(cool);
        assertThat(IntegerLiterals.mask(cool + " AND S = '12345678901234567890'"))
                .as("a long run outside the literals would be taken for a sentinel").isNull();
        assertThat(IntegerLiterals.mask(cool.replace("SELECT S", "SELECT S12345678901234567890"))).isNull();
        assertThat(IntegerLiterals.shapeKey(cool)).doesNotContain("1700000000000000001")
                .isEqualTo(IntegerLiterals.shapeKey(cool.replace("1700000000000000001", "5")));
        assertThat(IntegerLiterals.shapeKey("SELECT 1 FROM T WHERE S = '9170000000000000000'"))
                .as("a string's digits are part of the shape")
                .isNotEqualTo(IntegerLiterals.shapeKey("SELECT 1 FROM T WHERE S = '9170000000000000001'"))
                .contains("'9170000000000000000'");
        assertThat(IntegerLiterals.shapeKey("SELECT X FROM T")).isNull();
        assertThat(IntegerLiterals.shapeKey("SELECT X FROM T WHERE S = 'open 5")).isNull();
    }

    /** {@code sql} with its short integer literals replaced by other random numbers: another statement of its shape. */
    public static String renumbered(String sql, Random random) {
        Matcher m = INTEGER.matcher(sql);
        StringBuilder b = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(b, Integer.toString(random.nextInt(1_000_000)));
        }
        m.appendTail(b);
        return b.toString();
    }

    public static String verdict(SqlGuard guard, String sql) {
        try {
            SqlGuard.Checked c = guard.check(sql);
            return "admitted " + c.sql() + " " + c.tables() + " " + c.dictionary();
        } catch (FrontierException e) {
            return "refused " + e.getMessage();
        }
    }

    public static String verdict(CheckedStatements statements, String sql) {
        try {
            SqlGuard.Checked c = statements.check(sql);
            return "admitted " + c.sql() + " " + c.tables() + " " + c.dictionary();
        } catch (FrontierException e) {
            return "refused " + e.getMessage();
        }
    }

    private static List<String> corpus() throws IOException {
        Path dir = Path.of("src/test/resources/io/outpost/frontier/RequestFuzzTestInputs/sqlGuard");
        try (Stream<Path> files = Files.list(dir)) {
            List<String> out = new ArrayList<>();
            for (Path f : files.sorted().toList()) {
                out.add(Files.readString(f, StandardCharsets.UTF_8));
            }
            assertThat(out).isNotEmpty();
            return out;
        }
    }
}
