package io.outpost.frontier.answers;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.outpost.frontier.encode.EncodedRecords;
import io.outpost.store.flight.SingleFlight;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Encoded Frontier payloads, keyed by the normalised request (the checked SQL, its bind values and the zip level;
 * not the URL, so {@code freshkey} and parameter order do not matter) and valid for one stamp of the tables they
 * read. Only queries whose every table is a folder's IOV data (IOVS, IOV2TAG, PAYLOAD, IOVS_SEQ) are kept: every
 * write and tag operation of the folder changes its sequence row's {@code CURRENT_VALUE@LASTMOD_DATE}, which is
 * read on every request, so a kept answer is served only while the database still holds exactly that data.
 * Identical requests arriving together run the query once (single flight): the first computes, streaming to its
 * client and copying the bytes; the others wait and are served the copy. Bounded in bytes (Caffeine).
 */
public final class FrontierAnswers {
    /** The normalised request. */
    public record Key(String sql, List<String> binds, int level) {
    }

    /** One finished payload body (base64 text as sent), valid at {@code stamp}. */
    public record Encoded(String stamp, byte[] body, String md5, int rows, long fullSize) {
    }

    /** What a request is to do: serve {@code ready}, or compute (and, if it leads a flight, publish it). */
    public static final class Flight {
        private final String stamp;
        private final Encoded ready;
        /** The flight this request leads for the identical requests that wait for it; null when it leads none. */
        private final SingleFlight.Turn<Key, Encoded> leading;

        private Flight(String stamp, Encoded ready, SingleFlight.Turn<Key, Encoded> leading) {
            this.stamp = stamp;
            this.ready = ready;
            this.leading = leading;
        }

        /** The stamp the answer is read at (null for a claimed flight: its stamp comes with its query). */
        public String stamp() {
            return stamp;
        }

        /** An answer to serve as it is, or null when this request computes. */
        public Encoded ready() {
            return ready;
        }

        /** True if this request computes the answer for the identical requests that wait for it. */
        public boolean publishes() {
            return leading != null;
        }
    }

    public static final long DEFAULT_MAX_BYTES = 64L << 20;

    private final Pattern dataTable;
    private final Cache<Key, CompletableFuture<Encoded>> cache;
    private final SingleFlight<Key, Encoded> flights;
    /** Compressed answers by record content (half the budget again), or null when nothing is kept. */
    private final EncodedRecords byContent;
    private final long maxEntryBytes;
    private final AtomicLong hits = new AtomicLong();
    private final AtomicLong loads = new AtomicLong();
    private final AtomicLong joins = new AtomicLong();
    private final AtomicLong claims = new AtomicLong();

    public FrontierAnswers(String prefix, long maxBytes) {
        this.dataTable = Pattern.compile("(" + Pattern.quote(prefix.toUpperCase(Locale.ROOT))
                + "F[0-9]{4})_(IOVS|IOV2TAG|PAYLOAD|IOVS_SEQ)");
        this.maxEntryBytes = Math.max(0, maxBytes / 8);
        this.byContent = maxBytes > 0 ? new EncodedRecords(maxBytes / 2) : null;
        this.cache = Caffeine.newBuilder()
                .maximumWeight(Math.max(0, maxBytes))
                .weigher((Key k, CompletableFuture<Encoded> f) -> {
                    Encoded e = f.isDone() && !f.isCompletedExceptionally() ? f.join() : null;
                    return 256 + k.sql().length() * 2 + (e == null ? 0 : e.body().length);
                })
                .build();
        this.flights = new SingleFlight<>(cache.asMap());
    }

    /** The sequence tables whose stamps cover {@code tables}, or null when the query cannot be kept. */
    public Set<String> stampTables(Set<String> tables) {
        if (maxEntryBytes == 0 || tables == null || tables.isEmpty()) {
            return null;
        }
        Set<String> seq = new TreeSet<>();
        for (String t : tables) {
            Matcher m = dataTable.matcher(t.toUpperCase(Locale.ROOT));
            if (!m.matches()) {
                return null;
            }
            seq.add(m.group(1) + "_IOVS_SEQ");
        }
        return seq;
    }

    /** The tables' current stamp, read on {@code c}; null if a table has no sequence row. */
    public static String stamp(Connection c, Set<String> seqTables, int timeoutSeconds) throws SQLException {
        return read(c, seqTables, timeoutSeconds).text();
    }

    /** The tables' current stamp and times, read on {@code c}, a statement per table. */
    public static TableStamp read(Connection c, Set<String> seqTables, int timeoutSeconds) throws SQLException {
        StringBuilder b = new StringBuilder();
        List<String> modified = new ArrayList<>(seqTables.size());
        for (String seq : seqTables) {
            try (PreparedStatement ps = c.prepareStatement("SELECT CURRENT_VALUE, LASTMOD_DATE FROM " + seq)) {
                if (timeoutSeconds > 0) {
                    ps.setQueryTimeout(timeoutSeconds);
                }
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return TableStamp.MISSING;
                    }
                    String lastmod = rs.getString(2);
                    modified.add(lastmod);
                    b.append(seq).append('=').append(rs.getLong(1)).append('@').append(lastmod).append(';');
                }
            }
        }
        return new TableStamp(b.toString(), modified);
    }

    /**
     * Looks the request up at {@code stamp}: a kept answer, an identical request's answer (waiting at most
     * {@code maxWaitMillis} for it), or the duty to compute.
     */
    public Flight begin(Key key, String stamp, long maxWaitMillis) {
        for (int attempt = 0; attempt < 3; attempt++) {
            SingleFlight.Turn<Key, Encoded> turn = flights.turn(key);
            if (turn.leads()) {
                loads.incrementAndGet();
                return new Flight(stamp, null, turn);
            }
            if (!turn.wasDone()) {
                joins.incrementAndGet();
            }
            Encoded e = turn.awaitOrNull(maxWaitMillis);
            if (e == null) {
                loads.incrementAndGet();
                return new Flight(stamp, null, null); // the first request failed or gave up: compute alone
            }
            if (e.stamp().equals(stamp)) {
                hits.incrementAndGet();
                return new Flight(stamp, e, null);
            }
            turn.forget(); // another stamp: the data changed since
        }
        loads.incrementAndGet();
        return new Flight(stamp, null, null);
    }

    /**
     * The duty to compute a request that nothing is kept or under way for, taken before its stamp is known (the
     * stamp then comes in the query's own round trip, and {@link #finish} keeps the answer at it); null when the key is known. Identical
     * requests arriving meanwhile wait for it through {@link #begin} and compare its stamp with theirs, as they would
     * with any flight.
     */
    public Flight claim(Key key) {
        SingleFlight.Turn<Key, Encoded> turn = flights.claim(key);
        if (turn == null) {
            return null;
        }
        loads.incrementAndGet();
        claims.incrementAndGet();
        return new Flight(null, null, turn);
    }

    /** The answer kept for {@code key} at whatever stamp it was read, or null; for when no stamp can be read. */
    public Encoded kept(Key key) {
        CompletableFuture<Encoded> f = cache.getIfPresent(key);
        return f != null && f.isDone() && !f.isCompletedExceptionally() ? f.join() : null;
    }

    /**
     * Publishes the computed answer (null: failed, too big, or the data changed while it was read), at the stamp the
     * flight was begun at or, for a claimed flight, the one read with its query.
     */
    public void finish(Flight f, Encoded e) {
        if (f.leading == null) {
            return;
        }
        if (e == null || e.stamp() == null || f.stamp != null && !e.stamp().equals(f.stamp)) {
            f.leading.drop(null);
            return;
        }
        f.leading.land(e);
        f.leading.reput(); // re-weigh now that the size is known
    }

    /** The largest answer kept (an eighth of the budget). */
    public long maxEntryBytes() {
        return maxEntryBytes;
    }

    /** Answers served from memory (kept or joined). */
    public long hits() {
        return hits.get();
    }

    /** Computations claimed before their stamp was known (their prelude went with the query). */
    public long claims() {
        return claims.get();
    }

    /** Database runs of queries that could be kept (computed and published, or computed alone). */
    public long loads() {
        return loads.get();
    }

    /** Requests that waited for an identical request's query. */
    public long joins() {
        return joins.get();
    }

    /** Compressed answers by record content, reused by queries that differ yet yield the same rows (null: none). */
    public EncodedRecords byContent() {
        return byContent;
    }

    public void clear() {
        cache.invalidateAll();
        if (byContent != null) {
            byContent.clear();
        }
    }
}
