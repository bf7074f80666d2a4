package io.outpost.frontier.cost;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Statements (with their bind values) whose cost estimate was under the limit a moment ago. Asking the database for
 * an estimate is a round trip and a planning (EXPLAIN on PostgreSQL, ~0.5-1 ms), a tenth of a 10,000-row fetch; a
 * query just admitted is admitted again without asking until {@link #FOR} has passed, which statistics rarely
 * change. Rejections are not kept: a rejected query is estimated again each time. Bounded by characters held.
 */
final class AdmittedEstimates {
    static final Duration FOR = Duration.ofSeconds(10);
    private static final long MAX_CHARS = 4L << 20;
    /** Longer statements are estimated every time rather than displacing many short ones. */
    private static final int MAX_KEY_CHARS = 64 << 10;

    private record Key(String sql, List<String> binds) {
        int chars() {
            int n = sql.length();
            for (String b : binds) {
                n += b == null ? 1 : b.length() + 1;
            }
            return n;
        }
    }

    private final Cache<Key, Boolean> admitted = Caffeine.newBuilder()
            .maximumWeight(MAX_CHARS)
            .weigher((Key k, Boolean v) -> k.chars())
            .expireAfterWrite(FOR)
            .build();

    boolean recentlyAdmitted(String sql, List<String> binds) {
        return admitted.getIfPresent(new Key(sql, java.util.Collections.unmodifiableList(new ArrayList<>(binds)))) != null;
    }

    void admit(String sql, List<String> binds) {
        Key k = new Key(sql, java.util.Collections.unmodifiableList(new ArrayList<>(binds))); // binds may hold NULLs
        if (k.chars() <= MAX_KEY_CHARS) {
            admitted.put(k, Boolean.TRUE);
        }
    }
}
