package io.outpost.frontier.answers;

import io.outpost.store.db.SysTime;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Table modification times for Last-Modified / If-Modified-Since. Only a folder's own tables have one: the
 * LASTMOD_DATE of the folder's {@code _IOVS_SEQ} row, which every write and tag operation of the folder updates.
 * A query reading any other table (NODES, TAGS, ...) gets no Last-Modified, like an upstream query whose tables
 * have no known change time. Times are truncated to whole seconds (HTTP dates) and cached per table set for
 * {@code ValidateLastModifiedSeconds}.
 */
public final class TableTimes {
    private record Entry(long lastModified, long fetchedNanos) {
    }

    private final Pattern folderTable;
    private final long validityNanos;
    private final Map<Set<String>, Entry> cache = new ConcurrentHashMap<>();

    public TableTimes(String prefix, int validateSeconds) {
        this.folderTable = Pattern.compile("(" + Pattern.quote(prefix.toUpperCase(Locale.ROOT))
                + "F[0-9]{4})_(IOVS|CHANNELS|IOVS_SEQ|IOV2TAG|PAYLOAD)");
        this.validityNanos = validateSeconds * 1_000_000_000L;
    }

    /** The sequence tables whose LASTMOD_DATE covers {@code tables}, or null if some table has none. */
    public Set<String> sources(Set<String> tables) {
        if (validityNanos <= 0 || tables == null || tables.isEmpty()) {
            return null;
        }
        Set<String> seq = new TreeSet<>();
        for (String t : tables) {
            Matcher m = folderTable.matcher(t);
            if (!m.matches()) {
                return null;
            }
            seq.add(m.group(1) + "_IOVS_SEQ");
        }
        return seq;
    }

    /** -1: no timestamp possible; 0: not cached (or expired); else the cached time in ms. */
    public long cached(Set<String> sources) {
        if (sources == null) {
            return -1;
        }
        Entry e = cache.get(sources);
        if (e == null || System.nanoTime() - e.fetchedNanos > validityNanos) {
            return 0;
        }
        return e.lastModified;
    }

    /** Reads the times from the database and caches them; -1 if a time is missing or unreadable. */
    public long fetch(Connection c, Set<String> sources, int timeoutSeconds) throws SQLException {
        long max = 0;
        for (String seq : sources) {
            try (PreparedStatement ps = c.prepareStatement("SELECT LASTMOD_DATE FROM " + seq)) {
                ps.setQueryTimeout(timeoutSeconds);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return -1;
                    }
                    String s = rs.getString(1);
                    long t;
                    try {
                        t = SysTime.parse(s).toEpochMilli() / 1000 * 1000;
                    } catch (RuntimeException e) {
                        return -1;
                    }
                    max = Math.max(max, t);
                }
            }
        }
        if (max > 0) {
            cache.put(sources, new Entry(max, System.nanoTime()));
        }
        return max > 0 ? max : -1;
    }

    /**
     * The time of {@code sources} from their LASTMOD_DATEs as just read (e.g. with a folder's stamp), and caches it;
     * -1 if a time is missing or unreadable.
     */
    public long remember(Set<String> sources, List<String> modified) {
        if (modified.size() != sources.size()) {
            return -1;
        }
        long max = 0;
        for (String s : modified) {
            long t;
            try {
                t = SysTime.parse(s).toEpochMilli() / 1000 * 1000;
            } catch (RuntimeException e) {
                return -1;
            }
            max = Math.max(max, t);
        }
        if (max > 0) {
            cache.put(sources, new Entry(max, System.nanoTime()));
        }
        return max > 0 ? max : -1;
    }
}
