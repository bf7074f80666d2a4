package io.outpost.frontier.cost;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.outpost.frontier.sql.IntegerLiterals;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Statement shapes (integer literals masked: {@link IntegerLiterals}) whose cost estimate stays far under the limit
 * whatever their literals. COOL asks "valid at time t" with t in the SQL, so nearly every statement is new text and
 * {@link AdmittedEstimates} never matches; an estimate is a planning of its own (on PostgreSQL ~0.3-0.5 ms, 4 % of a
 * 10,000-row answer). A shape earns standing when {@link #EARNED_AFTER} instances in a row were estimated at a tenth
 * of the limit or less; then its instances are admitted without asking, except every {@link #RECOST_EVERY}th and any
 * after {@link #FOR} without an estimate, which are estimated as before. One estimate above a tenth of the limit, or
 * none (the database could not tell), takes the standing away.
 *
 * <p>What this gives up: an instance whose literal alone makes it ten times costlier than the shape's recent
 * instances runs without being estimated (unless it is one of those re-estimated). The statement timeout still bounds
 * it, as it bounds any query whose estimate was wrong.
 */
public final class SteadyShapes {
    public static final int EARNED_AFTER = 4;
    static final int RECOST_EVERY = 16;
    static final double MARGIN = 10;
    static final Duration FOR = AdmittedEstimates.FOR;
    private static final int MAX_SHAPES = 10_000;
    /** Longer statements are always estimated rather than displacing many short shapes. */
    private static final int MAX_KEY_CHARS = 16 << 10;

    private record Key(String shape, List<String> binds) {
    }

    /** {@code inARow} steady estimates, the last at {@code lastEstimate}, {@code since} admissions without one. */
    private record Standing(int inARow, long lastEstimate, int since) {
        boolean earned(long now) {
            return inARow >= EARNED_AFTER && now - lastEstimate < FOR.toNanos() && since < RECOST_EVERY - 1;
        }
    }

    private final Cache<Key, Standing> shapes = Caffeine.newBuilder()
            .maximumSize(MAX_SHAPES)
            .expireAfterAccess(FOR)
            .build();

    /** Whether the statement may run without an estimate; counts it as admitted on its shape's standing if so. */
    boolean vouchFor(String sql, List<String> binds) {
        Key k = key(sql, binds);
        if (k == null) {
            return false;
        }
        boolean[] vouched = {false};
        long now = System.nanoTime();
        shapes.asMap().computeIfPresent(k, (key, s) -> {
            if (!s.earned(now)) {
                return s;
            }
            vouched[0] = true;
            return new Standing(s.inARow(), s.lastEstimate(), s.since() + 1);
        });
        return vouched[0];
    }

    /** Records an estimate of the statement ({@code NaN}: the database gave none) against a limit. */
    void estimated(String sql, List<String> binds, double cost, double limit) {
        Key k = key(sql, binds);
        if (k == null) {
            return;
        }
        if (!(cost <= limit / MARGIN)) {
            shapes.invalidate(k);
            return;
        }
        long now = System.nanoTime();
        shapes.asMap().merge(k, new Standing(1, now, 0),
                (old, one) -> new Standing(Math.min(old.inARow() + 1, EARNED_AFTER), now, 0));
    }

    private static Key key(String sql, List<String> binds) {
        if (sql.length() > MAX_KEY_CHARS) {
            return null;
        }
        String shape = IntegerLiterals.shapeKey(sql);
        if (shape == null) {
            return null; // no literal: the statement is its own shape, remembered by AdmittedEstimates
        }
        return new Key(shape, Collections.unmodifiableList(new ArrayList<>(binds)));
    }
}
