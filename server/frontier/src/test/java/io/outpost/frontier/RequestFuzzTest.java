package io.outpost.frontier;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.outpost.frontier.protocol.FrontierCommand;
import io.outpost.frontier.protocol.FrontierException;
import io.outpost.frontier.protocol.P1Codec;
import io.outpost.frontier.sql.CheckedStatements;
import io.outpost.frontier.sql.FrontierDialects;
import io.outpost.frontier.sql.IntegerLiteralsTest;
import io.outpost.frontier.sql.JoinShapeCheck;
import io.outpost.frontier.sql.SqlGuard;
import io.outpost.frontier.sql.SqlParser;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import org.junit.jupiter.api.AutoClose;

/**
 * Jazzer fuzz targets for what a Frontier request carries: the query string, p1 and the SQL. The only failure any of
 * them may report is a FrontierException with a message for the client; anything else escaping fails.
 *
 * <p>In the normal suite each target runs over its committed corpus in
 * {@code src/test/resources/io/outpost/frontier/RequestFuzzTestInputs/<target>/} (regression mode). To fuzz, run
 * with {@code JAZZER_FUZZ=1} and {@code -Dtest=RequestFuzzTest#<target>}; new findings land in that folder.
 */
class RequestFuzzTest {
    /** Parses on threads of this test class, shut down after it. */
    @AutoClose
    private static final ExecutorService THREADS = SqlParser.newThreads();
    private static final SqlParser PARSER = new SqlParser(THREADS);
    private static final SqlGuard POSTGRES = new SqlGuard("OUTPOST_", null, FrontierDialects.POSTGRESQL, PARSER);
    private static final SqlGuard ORACLE = new SqlGuard("OUTPOST_", "COOLOWNER", FrontierDialects.ORACLE, PARSER);
    private static final JoinShapeCheck SHAPE = new JoinShapeCheck(4, true);

    @FuzzTest(maxDuration = "30s")
    void queryString(byte[] input) {
        String query = new String(input, StandardCharsets.UTF_8);
        try {
            for (FrontierCommand c : FrontierCommand.parse(query)) {
                assertThat(c.objectName()).isNotNull();
            }
        } catch (FrontierException e) {
            assertThat(e.getMessage()).isNotBlank();
        }
    }

    @FuzzTest(maxDuration = "30s")
    void p1(byte[] input) {
        String p1 = new String(input, StandardCharsets.UTF_8);
        try {
            String sql = P1Codec.decode(p1);
            assertThat(sql).isNotNull();
            // what decodes must encode and decode to itself
            assertThat(P1Codec.decode(P1Codec.encode(sql))).isEqualTo(sql);
        } catch (FrontierException e) {
            assertThat(e.getMessage()).isNotBlank();
        }
    }

    @FuzzTest(maxDuration = "30s")
    void sqlGuard(byte[] input) {
        String sql = new String(input, StandardCharsets.UTF_8);
        for (SqlGuard guard : new SqlGuard[] {POSTGRES, ORACLE}) {
            try {
                SqlGuard.Checked checked = guard.check(sql, SHAPE::check);
                assertThat(checked.sql()).isNotBlank();
            } catch (FrontierException e) {
                assertThat(e.getMessage()).matches("(?s)(SQL|Query) rejected: .+");
            }
        }
    }

    /** A statement checked through its shape (integer literals masked) gets the full check's verdict and SQL. */
    @FuzzTest(maxDuration = "30s")
    void shapeCheck(byte[] input) {
        String sql = new String(input, StandardCharsets.UTF_8);
        for (SqlGuard guard : new SqlGuard[] {POSTGRES, ORACLE}) {
            CheckedStatements statements = new CheckedStatements(guard::check);
            IntegerLiteralsTest.verdict(statements, IntegerLiteralsTest.renumbered(sql, new java.util.Random(sql.length())));
            assertThat(IntegerLiteralsTest.verdict(statements, sql)).isEqualTo(IntegerLiteralsTest.verdict(guard, sql));
        }
    }
}
