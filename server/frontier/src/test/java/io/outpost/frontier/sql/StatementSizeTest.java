package io.outpost.frontier.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outpost.frontier.FrontierException;
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

    @Test
    void aParseThatTakesTooLongIsRefused() {
        // 150 nested parentheses pass the look but take JSqlParser far more than a millisecond
        SqlParser impatient = new SqlParser(THREADS, 1);
        assertThatThrownBy(() -> impatient.parseSelect(nested(150))).isInstanceOf(FrontierException.class)
                .hasMessageStartingWith("SQL rejected: ");
        assertThatThrownBy(() -> new SqlParser(THREADS, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
