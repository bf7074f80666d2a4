package io.outpost.frontier.sql;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.outpost.frontier.protocol.FrontierException;

/**
 * The SQL guard's verdict (and the join-shape check's) per statement text, remembered: both are pure functions of
 * the text for a given context, and parsing costs more than a cached answer's whole service time (jsqlparser runs
 * on its own thread, with a timeout). Repeated statements, the rule for Frontier traffic, are parsed once.
 * Only admitted statements are kept: a rejection may come from a parse that timed out under load. Bounded by the
 * characters held, so distinct long statements cannot grow it without limit.
 *
 * <p>A statement seen for the first time is checked through its shape, its integer literals masked, when the shape
 * passes: the checks do not depend on a number's value, and COOL writes the time it asks for into the SQL.
 */
public final class CheckedStatements {
    /** What a check may throw, with its message. */
    @FunctionalInterface
    public interface Check {
        SqlGuard.Checked apply(String statement) throws FrontierException;
    }

    private static final long MAX_CHARS = 4L << 20;
    /** Longer statements are checked every time rather than displacing many short ones. */
    private static final int MAX_STATEMENT_CHARS = 64 << 10;

    private final Check check;
    private final java.util.concurrent.atomic.AtomicLong shapes = new java.util.concurrent.atomic.AtomicLong();
    private final Cache<String, SqlGuard.Checked> admitted = Caffeine.newBuilder()
            .maximumWeight(MAX_CHARS)
            .weigher((String statement, SqlGuard.Checked c) -> statement.length() + c.sql().length())
            .build();

    public CheckedStatements(Check check) {
        this.check = check;
    }

    public SqlGuard.Checked check(String statement) throws FrontierException {
        if (statement.length() > MAX_STATEMENT_CHARS) {
            return check.apply(statement);
        }
        SqlGuard.Checked c = admitted.getIfPresent(statement);
        if (c == null) {
            c = byShape(statement);
        }
        if (c == null) {
            c = check.apply(statement);
            admitted.put(statement, c);
        }
        return c;
    }

    /**
     * The verdict of the statement's shape (its integer literals masked: {@link IntegerLiterals}) with the literals
     * put back, or null when the statement has no such shape, the shape is refused (the statement itself is then
     * checked, for its own message) or the check did more than carry the literals through.
     */
    private SqlGuard.Checked byShape(String statement) {
        IntegerLiterals.Masked m = IntegerLiterals.mask(statement);
        if (m == null) {
            return null;
        }
        SqlGuard.Checked shape = admitted.getIfPresent(m.shape());
        if (shape == null) {
            try {
                shape = check.apply(m.shape());
            } catch (FrontierException e) {
                return null;
            }
            admitted.put(m.shape(), shape);
        }
        String sql = IntegerLiterals.restore(shape.sql(), m.literals());
        if (sql == null) {
            return null;
        }
        shapes.incrementAndGet();
        return new SqlGuard.Checked(sql, shape.tables(), shape.dictionary(),
                shape.coolRead() == null ? null : shape.coolRead().withLiterals(m.literals()));
    }

    /** Statements admitted through their shape's verdict. */
    public long byShapes() {
        return shapes.get();
    }
}
