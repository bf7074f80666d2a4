package io.outpost.server.cache;

import java.util.function.LongFunction;

/**
 * An answer's signature header (docs/api.md "Signed answers"), kept after its first write so that later hits only
 * copy it: a signature costs far more than a memory hit. It is bound to the request path, so it is kept per path;
 * two paths cover an answer served at two URLs (a current-state snapshot and its pinned URL). A signature expires,
 * so a kept one is replaced before a cache could hold the answer fresh past its expiry.
 */
public final class SignatureMemo {
    private record Entry(String path, String header, long expires) {
    }

    private volatile Entry latest;
    private volatile Entry previous;

    /**
     * The header for {@code path}, signed by {@code sign} (given the expiry) unless the kept one still has at least
     * {@code maxAge + grace / 2} seconds to live at {@code now}; a new one expires at {@code now + maxAge + grace}.
     * A race may sign twice: harmless.
     */
    public String header(String path, long now, long maxAge, long grace, LongFunction<String> sign) {
        long needed = now + maxAge + grace / 2;
        Entry a = latest;
        if (a != null && a.path.equals(path) && a.expires >= needed) {
            return a.header;
        }
        Entry b = previous;
        if (b != null && b.path.equals(path) && b.expires >= needed) {
            return b.header;
        }
        long expires = now + maxAge + grace;
        String header = sign.apply(expires);
        if (a != null && !a.path.equals(path)) {
            previous = a;
        }
        latest = new Entry(path, header, expires);
        return header;
    }
}
