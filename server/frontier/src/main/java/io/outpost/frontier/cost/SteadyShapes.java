package io.outpost.frontier.cost;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.outpost.frontier.sql.IntegerLiterals;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Statement shapes (integer literals masked: {@link IntegerLiterals}) whose cost estimate stays far under the limit
 * whatever their literals. COOL asks "valid at time t" with t in the SQL, so nearly every statement is new text and
 * {@link AdmittedEstimates} never matches; an estimate is a planning of its own (on PostgreSQL ~0.3-0.5 ms, 4 % of a
 * 10,000-row answer) and, where it cannot go with the query's prelude, a round trip. A shape earns standing when
 * {@link #EARNED_AFTER} instances in a row were estimated at a tenth of the limit or less; then its instances are
 * admitted without asking for {@link #FOR} after its last estimate, and the first instance after that is estimated
 * as before: one estimate per shape per interval, however many literals it is asked with. One estimate above a
 * tenth of the limit, or none (the database could not tell), takes the standing away.
 *
 * <p>What this gives up: an instance whose literal alone makes it ten times costlier than the shape's recent
 * instances runs without being estimated (unless it is the one re-estimated). The statement timeout still bounds it,
 * as it bounds any query whose estimate was wrong.
 */
public final class SteadyShapes {
    public static final int EARNED_AFTER = 4;
    static final double MARGIN = 10;
    static final Duration FOR = AdmittedEstimates.FOR;
    private static final int MAX_SHAPES = 10_000;
    /** Longer statements are always estimated rather than displacing many short shapes. */
    private static final int MAX_KEY_CHARS = 16 << 10;

    private record Key(String shape, List<String> binds) {
    }

    /** {@code inARow} steady estimates, the last at {@code lastEstimate}. */
    private record Standing(int inARow, long lastEstimate) {
        boolean earned(long now) {
            return inARow >= EARNED_AFTER && now - lastEstimate < FOR.toNanos();
        }
    }

    private final Cache<Key, Standing> shapes = Caffeine.newBuilder()
            .maximumSize(MAX_SHAPES)
            .expireAfterAccess(FOR)
            .build();
    /** Nanoseconds, as {@link System#nanoTime()}. */
    private final LongSupplier clock;

    SteadyShapes() {
        this(System::nanoTime);
    }

    /** Standing timed by {@code clock} (tests). */
    SteadyShapes(LongSupplier clock) {
        this.clock = clock;
    }

    /** Whether the statement may run without an estimate. */
    boolean vouchFor(String sql, List<String> binds) {
        Key k = key(sql, binds);
        if (k == null) {
            return false;
        }
        Standing s = shapes.getIfPresent(k);
        return s != null && s.earned(clock.getAsLong());
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
        long now = clock.getAsLong();
        shapes.asMap().merge(k, new Standing(1, now),
                (old, one) -> new Standing(Math.min(old.inARow() + 1, EARNED_AFTER), now));
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
