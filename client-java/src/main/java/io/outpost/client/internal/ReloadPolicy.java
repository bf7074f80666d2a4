package io.outpost.client.internal;

import io.outpost.client.Refresh;
import java.util.Locale;

/**
 * frontier_client's reload controls mapped onto native API requests (docs/client-failover.md, "Reload controls"):
 * {@code forcereload} and {@code freshkey} make requests of the chosen lifetime classes start with a soft
 * ({@code max-age=0}) or hard ({@code no-cache}) refresh and skip the in-process cache; {@code maxagesecs=N}
 * asks caches for copies at most N seconds old.
 */
public final class ReloadPolicy {
    /** Lifetime classes of native requests, in frontier_client's order (short < long < forever). */
    enum Ttl { SHORT, LONG, FOREVER }

    public static final ReloadPolicy NONE = new ReloadPolicy(null, null, -1);

    private final Ttl upTo;
    private final Refresh refresh;
    private final long maxAgeSecs;

    private ReloadPolicy(Ttl upTo, Refresh refresh, long maxAgeSecs) {
        this.upTo = upTo;
        this.refresh = refresh;
        this.maxAgeSecs = maxAgeSecs;
    }

    /**
     * From the configuration: forcereload ({@code none}, {@code short}, {@code long}, {@code forever}, each also
     * with a {@code soft} prefix), maxagesecs (-1 = unset; 0 = softlong), freshkey (null = unset; a {@code long}
     * prefix extends it to the long class). The strongest of them wins.
     */
    public static ReloadPolicy of(String forceReload, long maxAgeSecs, String freshKey) {
        Ttl upTo = null;
        Refresh refresh = null;
        String f = forceReload == null ? "none" : forceReload.toLowerCase(Locale.ROOT);
        if (!f.equals("none")) {
            boolean soft = f.startsWith("soft");
            upTo = classOf(soft ? f.substring(4) : f);
            refresh = soft ? Refresh.SOFT : Refresh.HARD;
        }
        if (maxAgeSecs == 0 && (upTo == null || upTo.compareTo(Ttl.LONG) < 0)) {
            upTo = Ttl.LONG;
            refresh = refresh == null ? Refresh.SOFT : refresh;
        }
        if (freshKey != null && !freshKey.isEmpty()) {
            Ttl k = freshKey.startsWith("long") ? Ttl.LONG : Ttl.SHORT;
            if (upTo == null || upTo.compareTo(k) < 0) {
                upTo = k;
            }
            refresh = refresh == null ? Refresh.SOFT : refresh;
        }
        return new ReloadPolicy(upTo, refresh, maxAgeSecs);
    }

    /**
     * The widest class refreshed: as frontier_client, the first of "short", "long", "forever" the value contains, so
     * {@code shortforever} refreshes what {@code short} does.
     */
    private static Ttl classOf(String level) {
        return level.contains("short") ? Ttl.SHORT : level.contains("long") ? Ttl.LONG : Ttl.FOREVER;
    }

    /** The values forcereload accepts. */
    public static boolean validForceReload(String v) {
        return v.toLowerCase(Locale.ROOT).matches("none|(soft)?(short|long|forever|shortforever)");
    }

    /**
     * The lifetime class of a native API path: pinned URLs never change (forever); IOV queries through a named
     * tag are long (tags are usually locked); HEAD queries, lists and states are short.
     */
    static Ttl ttlOf(String path) {
        if (path.contains("/pin/")) {
            return Ttl.FOREVER;
        }
        String[] p = path.split("/");
        // "", v1, bin, at|browse|count, tag, ...
        if (p.length > 4 && (p[3].equals("at") || p[3].equals("browse") || p[3].equals("count"))
                && !p[4].equals("HEAD")) {
            return Ttl.LONG;
        }
        return Ttl.SHORT;
    }

    /** How the first attempt of a request for {@code path} asks the caches. */
    public Refresh initialRefresh(String path) {
        return forces(path) ? refresh : Refresh.NONE;
    }

    /** Whether a request for {@code path} must skip the in-process cache. */
    public boolean forces(String path) {
        return upTo != null && ttlOf(path).compareTo(upTo) <= 0;
    }

    /** The Cache-Control of an ordinary attempt: {@code max-age=N} with maxagesecs N > 0, else null. */
    public String plainCacheControl() {
        return maxAgeSecs > 0 ? "max-age=" + maxAgeSecs : null;
    }

    /** The longest time an answer may be kept in process, capped by maxagesecs. */
    public long capFreshSeconds(long fresh) {
        return maxAgeSecs > 0 ? Math.min(fresh, maxAgeSecs) : fresh;
    }
}
