package io.outpost.frontier;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

/**
 * The SQL guard's verdict (and the join-shape check's) per statement text, remembered: both are pure functions of
 * the text for a given context, and parsing costs more than a cached answer's whole service time (jsqlparser runs
 * on its own thread, with a timeout). Repeated statements, the rule for Frontier traffic, are parsed once.
 * Only admitted statements are kept: a rejection may come from a parse that timed out under load. Bounded by the
 * characters held, so distinct long statements cannot grow it without limit.
 */
final class CheckedStatements {
    /** What a check may throw, with its message. */
    @FunctionalInterface
    interface Check {
        SqlGuard.Checked apply(String statement) throws FrontierException;
    }

    private static final long MAX_CHARS = 4L << 20;
    /** Longer statements are checked every time rather than displacing many short ones. */
    private static final int MAX_STATEMENT_CHARS = 64 << 10;

    private final Check check;
    private final Cache<String, SqlGuard.Checked> admitted = Caffeine.newBuilder()
            .maximumWeight(MAX_CHARS)
            .weigher((String statement, SqlGuard.Checked c) -> statement.length() + c.sql().length())
            .build();

    CheckedStatements(Check check) {
        this.check = check;
    }

    SqlGuard.Checked check(String statement) throws FrontierException {
        if (statement.length() > MAX_STATEMENT_CHARS) {
            return check.apply(statement);
        }
        SqlGuard.Checked c = admitted.getIfPresent(statement);
        if (c == null) {
            c = check.apply(statement);
            admitted.put(statement, c);
        }
        return c;
    }
}
