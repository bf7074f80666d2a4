package io.outpost.client;

/**
 * Cache alignment of at-time queries (ATLAS {@code CacheAlign}): a query at key {@code t} fetches the window
 * {@code [lo, lo + length)} with {@code lo = t - t mod (length / divisions)} and selects the objects valid at t
 * locally. Edges fall on a fixed grid, so different jobs produce identical URLs that a cache answers once.
 *
 * @param length the window length in keys (ns for time folders, {@code 1L << 32} is one run for run-lumi ones)
 * @param divisions N: the window start moves in steps of {@code length / N}; 1 gives non-overlapping windows
 */
public record CacheAlign(long length, int divisions) {
    /** ATLAS's default for time folders: 600 s, one window per 600 s. */
    public static final CacheAlign TIME_DEFAULT = new CacheAlign(600_000_000_000L, 1);
    /** ATLAS's default for run-lumi folders: one run. */
    public static final CacheAlign RUN_LUMI_DEFAULT = new CacheAlign(1L << 32, 1);

    public CacheAlign {
        if (length < 1) {
            throw new IllegalArgumentException("window length must be at least 1, not " + length);
        }
        if (divisions < 1 || divisions > length) {
            throw new IllegalArgumentException("divisions must be 1.." + length + ", not " + divisions);
        }
    }

    /** The first key of the window for {@code t}. */
    public long lo(long t) {
        return t - t % (length / divisions);
    }

    /** The last key of the window for {@code t} (the browse's t2), at most {@link Keys#MAX}. */
    public long hiInclusive(long t) {
        long lo = lo(t);
        return lo > Keys.MAX - length ? Keys.MAX : lo + length - 1;
    }
}
