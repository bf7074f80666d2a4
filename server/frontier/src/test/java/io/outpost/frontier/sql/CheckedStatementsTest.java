package io.outpost.frontier.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outpost.frontier.protocol.FrontierException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

class CheckedStatementsTest {
    /** Parses on threads of this test class, shut down after it. */
    @AutoClose
    private static final ExecutorService THREADS = SqlParser.newThreads();
    private static final SqlParser PARSER = new SqlParser(THREADS);
    private final SqlGuard guard = new SqlGuard("COOL_", "OUTPOST", FrontierDialects.SQLITE, PARSER);
    private final AtomicInteger parses = new AtomicInteger();
    private final CheckedStatements statements = new CheckedStatements(s -> {
        parses.incrementAndGet();
        return guard.check(s);
    });

    @Test
    void anAdmittedStatementIsParsedOnce() throws Exception {
        String sql = "SELECT CHANNEL_ID, IOV_SINCE FROM COOL_F0001_IOVS ORDER BY CHANNEL_ID";
        SqlGuard.Checked first = statements.check(sql);
        SqlGuard.Checked again = statements.check(sql);
        assertThat(again).isEqualTo(first).isEqualTo(guard.check(sql));
        assertThat(first.tables()).containsExactly("COOL_F0001_IOVS");
        assertThat(parses).hasValue(1);
        statements.check(sql + " ");
        assertThat(parses).hasValue(2);
    }

    @Test
    void statementsThatDifferOnlyInTheirIntegersAreParsedOncePerShape() throws Exception {
        for (long t = 0; t < 20; t++) {
            String sql = "SELECT CHANNEL_ID, S FROM COOL_F0001_IOVS WHERE IOV_SINCE <= " + t * 1000 + " AND IOV_UNTIL > "
                    + t * 1000 + " ORDER BY CHANNEL_ID";
            assertThat(statements.check(sql)).isEqualTo(guard.check(sql));
        }
        assertThat(parses).hasValue(1);
        assertThat(statements.byShapes()).isEqualTo(20);
    }

    @Test
    void aRejectedStatementIsCheckedEveryTimeAndKeepsItsMessage() {
        String sql = "DELETE FROM COOL_F0001_IOVS";
        for (int i = 0; i < 2; i++) {
            assertThatThrownBy(() -> statements.check(sql)).isInstanceOf(FrontierException.class)
                    .hasMessageContaining("only SELECT");
        }
        assertThat(parses).hasValue(2);
    }

    @Test
    void aVeryLongStatementIsNotKept() throws Exception {
        String sql = "SELECT CHANNEL_ID FROM COOL_F0001_IOVS WHERE CHANNEL_ID IN (" + "1,".repeat(40_000) + "2)";
        statements.check(sql);
        statements.check(sql);
        assertThat(parses).hasValue(2);
    }
}
