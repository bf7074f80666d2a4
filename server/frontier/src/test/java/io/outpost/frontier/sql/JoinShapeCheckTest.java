package io.outpost.frontier.sql;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outpost.frontier.protocol.FrontierException;
import java.util.concurrent.ExecutorService;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class JoinShapeCheckTest {
    /** Parses on threads of this test class, shut down after it. */
    @AutoClose
    private static final ExecutorService THREADS = SqlParser.newThreads();
    private static final SqlParser PARSER = new SqlParser(THREADS);
    private final JoinShapeCheck check = new JoinShapeCheck(4, true);

    @ParameterizedTest
    @ValueSource(strings = {
            "SELECT 1 FROM DUAL",
            "SELECT * FROM OUTPOST_F0001_IOVS",
            // COOL's multi-version tag query: three tables, every one joined
            "SELECT i.CHANNEL_ID FROM OUTPOST_F0001_IOVS i, OUTPOST_F0001_IOV2TAG r, OUTPOST_F0001_TAGS t "
                    + "WHERE r.IOV_ID = i.IOV_ID AND r.TAG_ID = t.TAG_ID AND t.TAG_NAME = 'A'",
            "SELECT i.X FROM OUTPOST_F0001_IOVS i JOIN OUTPOST_F0001_CHANNELS c ON c.CHANNEL_ID = i.CHANNEL_ID",
            "SELECT i.X FROM OUTPOST_F0001_IOVS i JOIN OUTPOST_F0001_CHANNELS c USING (CHANNEL_ID)",
            "SELECT OUTPOST_NODES.NODE_ID FROM OUTPOST_NODES, OUTPOST_TAGS WHERE OUTPOST_NODES.NODE_ID = OUTPOST_TAGS.NODE_ID",
            // a range join and a nested sub-select with its own correlated condition
            "SELECT a.X FROM OUTPOST_F0001_IOVS a, OUTPOST_F0001_IOVS b WHERE (a.IOV_SINCE <= b.IOV_SINCE)",
            "SELECT i.X FROM OUTPOST_F0001_IOVS i WHERE i.IOV_SINCE >= (SELECT MAX(j.IOV_SINCE) FROM OUTPOST_F0001_IOVS j "
                    + "WHERE j.CHANNEL_ID = i.CHANNEL_ID)",
            "SELECT d.X FROM (SELECT i.X, i.CHANNEL_ID FROM OUTPOST_F0001_IOVS i) d, OUTPOST_F0001_CHANNELS c "
                    + "WHERE d.CHANNEL_ID = c.CHANNEL_ID",
    })
    void acceptsJoinedQueries(String sql) {
        assertThatCode(() -> check.check(PARSER.parseSelect(sql))).doesNotThrowAnyException();
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "SELECT * FROM OUTPOST_F0001_IOVS a, OUTPOST_F0001_IOVS b",
            "SELECT * FROM OUTPOST_F0001_IOVS a CROSS JOIN OUTPOST_F0001_IOVS b",
            "SELECT * FROM OUTPOST_F0001_IOVS a JOIN OUTPOST_F0001_IOVS b ON 1 = 1",
            "SELECT * FROM OUTPOST_F0001_IOVS a, OUTPOST_F0001_IOVS b WHERE a.X = b.X OR 1 = 1",
            "SELECT * FROM OUTPOST_F0001_IOVS a, OUTPOST_F0001_IOVS b WHERE a.X <> b.X",
            "SELECT * FROM OUTPOST_F0001_IOVS a, OUTPOST_F0001_IOVS b WHERE X = Y",
            "SELECT * FROM OUTPOST_F0001_IOVS a, OUTPOST_F0001_IOVS b, OUTPOST_F0001_IOVS c WHERE a.X = b.X",
            "SELECT 1 FROM DUAL WHERE EXISTS (SELECT 1 FROM OUTPOST_NODES n, OUTPOST_TAGS t WHERE n.NODE_ID = 1)",
            "SELECT 1 FROM DUAL UNION ALL SELECT 1 FROM OUTPOST_NODES n, OUTPOST_TAGS t",
            // in clauses JSqlParser 5.4's visitor adapters do not reach by themselves
            "SELECT 1 FROM DUAL WHERE 1 = ANY (SELECT n.NODE_ID FROM OUTPOST_NODES n, OUTPOST_TAGS t)",
            "SELECT u.X FROM (SELECT 1 AS X FROM DUAL UNION SELECT n.NODE_ID FROM OUTPOST_NODES n, OUTPOST_TAGS t) u",
            "SELECT 1 FROM DUAL LIMIT (SELECT COUNT(*) FROM OUTPOST_NODES n, OUTPOST_TAGS t)",
    })
    void rejectsCartesianProducts(String sql) {
        assertThatThrownBy(() -> check.check(PARSER.parseSelect(sql))).isInstanceOf(FrontierException.class)
                .hasMessageStartingWith("SQL rejected: cartesian product: ").hasMessageContaining("is not joined to");
    }

    @Test
    void rejectsMoreTablesThanConfigured() {
        String five = "SELECT * FROM OUTPOST_NODES a, OUTPOST_NODES b, OUTPOST_NODES c, OUTPOST_NODES d, OUTPOST_NODES e"
                + " WHERE a.NODE_ID = b.NODE_ID AND b.NODE_ID = c.NODE_ID AND c.NODE_ID = d.NODE_ID AND d.NODE_ID = e.NODE_ID";
        assertThatThrownBy(() -> check.check(PARSER.parseSelect(five))).isInstanceOf(FrontierException.class)
                .hasMessage("SQL rejected: a SELECT may read at most 4 tables (MaxJoinTables), this one reads 5");
        assertThatCode(() -> new JoinShapeCheck(5, true).check(PARSER.parseSelect(five))).doesNotThrowAnyException();
    }

    @Test
    void disabledChecksAcceptEverything() throws Exception {
        assertThatCode(() -> new JoinShapeCheck(0, false).check(PARSER.parseSelect("SELECT * FROM A a, B b, C c, D d, E e, F f")))
                .doesNotThrowAnyException();
    }
}
