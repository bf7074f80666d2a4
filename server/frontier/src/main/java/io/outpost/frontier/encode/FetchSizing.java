package io.outpost.frontier.encode;

import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Rows fetched per round trip, sized from the rows themselves: the first {@link #FIRST} rows come as before, then the
 * fetch size grows so that one fetch carries about {@link #BATCH_BYTES} of answer bytes (at most {@link #MOST} rows).
 * A 10,000-row answer of short rows then costs 3 round trips to PostgreSQL instead of 20 (each a wake-up of the
 * database and of the reader: half a megabyte a fetch measured a little faster than a quarter, docs/benchmarks.md);
 * rows of a kilobyte or more keep the first size, so what the driver holds per request stays bounded.
 */
public final class FetchSizing {
    public static final int FIRST = 500;
    static final long BATCH_BYTES = 512 << 10;
    static final int MOST = 5_000;

    private FetchSizing() {
    }

    /** Called after each row with the rows read and the answer bytes so far; resizes once, after the first fetch. */
    public static void afterRow(ResultSet rs, int rows, long bytes) throws SQLException {
        if (rows == FIRST) {
            int size = size(bytes / rows);
            if (size > FIRST) {
                rs.setFetchSize(size);
            }
        }
    }

    /** The rows per fetch for rows of {@code bytesPerRow} answer bytes. */
    public static int size(long bytesPerRow) {
        return (int) Math.max(FIRST, Math.min(MOST, BATCH_BYTES / Math.max(1, bytesPerRow)));
    }
}
