package io.outpost.frontier.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outpost.frontier.protocol.FrontierException;
import java.util.List;
import java.util.concurrent.ExecutorService;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/** The look before parsing, and the parse timeout. */
class StatementSizeTest {
    /** Parses on threads of this test class, shut down after it. */
    @AutoClose
    private static final ExecutorService THREADS = SqlParser.newThreads();

    private static String nested(int depth) {
        return "select " + "(".repeat(depth) + "1" + ")".repeat(depth) + " from dual";
    }

    @Test
    void refusesDeepNestingBeforeParsing() {
        assertThatCode(() -> StatementSize.check(nested(StatementSize.MAX_DEPTH))).doesNotThrowAnyException();
        assertThatThrownBy(() -> StatementSize.check(nested(StatementSize.MAX_DEPTH + 1)))
                .isInstanceOf(FrontierException.class)
                .hasMessage("SQL rejected: parentheses nested deeper than " + StatementSize.MAX_DEPTH + " levels");
        // 5,000 levels would cost the parser its whole timeout; refused at once
        SqlParser parser = new SqlParser(THREADS);
        long start = System.nanoTime();
        assertThatThrownBy(() -> parser.parseSelect(nested(5000))).hasMessageContaining("nested deeper");
        assertThat(System.nanoTime() - start).isLessThan(1_000_000_000L);
    }

    @Test
    void parenthesesInTextAndCommentsDoNotCount() {
        String deep = "(".repeat(StatementSize.MAX_DEPTH + 1);
        assertThatCode(() -> StatementSize.check("select '" + deep + "' from dual -- " + deep + "\n /* " + deep + " */"))
                .doesNotThrowAnyException();
        assertThatCode(() -> StatementSize.check("select \"" + deep + "\" from dual")).doesNotThrowAnyException();
    }

    @Test
    void refusesTooManyTokens() {
        String many = "select 1 from dual where 1 in (" + "1,".repeat(StatementSize.MAX_TOKENS / 2) + "1)";
        assertThatThrownBy(() -> StatementSize.check(many)).isInstanceOf(FrontierException.class)
                .hasMessage("SQL rejected: statement longer than " + StatementSize.MAX_TOKENS + " tokens");
        assertThatCode(() -> StatementSize.check("select 1 from dual where 1 in (" + "1,".repeat(40_000) + "1)"))
                .doesNotThrowAnyException();
    }

    /**
     * Chains of operators build trees as deep as they are long, which overflowed the parser's and the walks' stacks
     * beyond 2,000 levels (issue "Trust at the edges"): refused before parsing, whatever the operator.
     */
    @Test
    void refusesOverDeepOperatorChainsBeforeParsing() {
        int max = StatementSize.MAX_CHAINED_OPERATORS;
        String refusal = "SQL rejected: more than " + max + " operators chained in one expression";
        for (String chain : List.of("SELECT 1 FROM DUAL WHERE " + "NOT ".repeat(50_000) + "1=1",
                "SELECT 1" + "+1".repeat(5_000) + " FROM DUAL",
                "SELECT 1 FROM DUAL WHERE 1=1" + " OR 1=1".repeat(5_000),
                "SELECT 1 FROM DUAL WHERE 1=1" + " and (1=1".repeat(150) + ")".repeat(150) + " OR 1=1".repeat(300),
                "SELECT 1 FROM DUAL WHERE " + "- ".repeat(max) + "1 = 1")) {
            assertThatThrownBy(() -> StatementSize.check(chain)).as(chain.substring(0, 60))
                    .isInstanceOf(FrontierException.class).hasMessageStartingWith(refusal).hasNoCause();
        }
        // a statement as long, whose operators do not chain, passes: IN lists, and select items split by commas
        assertThatCode(() -> StatementSize.check("SELECT 1 FROM DUAL WHERE 1 IN (" + "-1,".repeat(5_000) + "1)"))
                .doesNotThrowAnyException();
        assertThatCode(() -> StatementSize.check("SELECT " + "a+1, ".repeat(5_000) + "1 FROM DUAL"))
                .doesNotThrowAnyException();
        // up to the limit the parser and the walks cope (this thread's stack is no larger than a service thread's)
        SqlGuard pg = new SqlGuard("OUTPOST_", "ATLAS_COOLOFL", FrontierDialects.POSTGRESQL, new SqlParser(THREADS));
        for (String chain : List.of("SELECT 1 FROM DUAL WHERE " + "NOT ".repeat(max - 2) + "1=1",
                "SELECT 1" + "+1".repeat(max) + " FROM DUAL",
                "SELECT 1 FROM DUAL WHERE 1=1" + " OR 1=1".repeat(max / 3))) {
            assertThatCode(() -> pg.check(chain)).as(chain.substring(0, 40)).doesNotThrowAnyException();
        }
    }

    @Test
    void aParseThatTakesTooLongIsRefused() {
        // 150 nested parentheses pass the look but take JSqlParser far more than a millisecond
        SqlParser impatient = new SqlParser(THREADS, 1);
        assertThatThrownBy(() -> impatient.parseSelect(nested(150))).isInstanceOf(FrontierException.class)
                .hasMessageStartingWith("SQL rejected: ");
        assertThatThrownBy(() -> new SqlParser(THREADS, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
