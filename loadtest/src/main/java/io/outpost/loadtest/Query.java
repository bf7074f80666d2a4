package io.outpost.loadtest;

/**
 * One conditions query of a workload: every IOV of {@code folder} with since &lt;= t2 and until &gt; t1, all channels
 * (an at-time query when t1 == t2). {@code jitterRoom} is how far the key may be moved without changing the answer,
 * which the proxied mode uses to make each URL distinct; {@code expectedRows} is the size of the answer.
 */
public record Query(String folder, long t1, long t2, long jitterRoom, long expectedRows) {

    public boolean isAt() {
        return t1 == t2;
    }

    /** The canonical native URL path (binary format, HEAD, all channels). */
    public String path() {
        return isAt() ? "/v1/bin/at/HEAD/" + t1 + "/all" + folder
                : "/v1/bin/browse/HEAD/" + t1 + "/" + t2 + "/all/cs" + folder;
    }

    /**
     * The same query at a different but equivalent key, number {@code n}: at-queries move t forward inside its IOV,
     * browses move t1 back before the first IOV. Distinct n (below jitterRoom) give distinct URLs with the same answer.
     */
    public Query distinct(long n) {
        if (jitterRoom <= 0) {
            throw new IllegalStateException("query of " + folder + " has no room for distinct keys");
        }
        long d = 1 + Math.floorMod(n, jitterRoom);
        return isAt() ? new Query(folder, t1 + d, t2 + d, jitterRoom, expectedRows)
                : new Query(folder, t1 - d, t2, jitterRoom, expectedRows);
    }
}
