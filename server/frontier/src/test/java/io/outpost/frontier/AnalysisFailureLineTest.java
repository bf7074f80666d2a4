package io.outpost.frontier;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * An analyser failure is logged as one line (issue "Trust at the edges"): a StackOverflowError's stack was 121 KB,
 * and a crafted statement repeated filled the log.
 */
class AnalysisFailureLineTest {

    @Test
    void aFailureIsOneShortLineNamingWhereItWasThrown() {
        StackOverflowError deep = overflow(0);
        String line = ParseStep.oneLine(deep);
        assertThat(line).doesNotContain("\n").startsWith("java.lang.StackOverflowError at ")
                .contains("AnalysisFailureLineTest.overflow");
        assertThat(line.length()).isLessThanOrEqualTo(503);
        String message = ParseStep.oneLine(new IllegalStateException("two\nlines"));
        assertThat(message).doesNotContain("\n").startsWith("java.lang.IllegalStateException: two lines at ");
    }

    private static StackOverflowError overflow(int depth) {
        try {
            return overflow(depth + 1);
        } catch (StackOverflowError e) {
            return e;
        }
    }
}
