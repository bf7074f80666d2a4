package io.outpost.server.cache;

import java.util.function.Function;

/**
 * An answer's signature header (docs/api.md "Signed answers"), kept after its first write so that later hits only
 * copy it: a signature costs far more than a memory hit. It is bound to the request path, so it is kept per path;
 * two paths cover an answer served at two URLs (a current-state snapshot and its pinned URL).
 */
public final class SignatureMemo {
    private record Entry(String path, String header) {
    }

    private volatile Entry latest;
    private volatile Entry previous;

    /** The header for {@code path}, computed by {@code sign} the first time (a race may compute it twice: harmless). */
    public String header(String path, Function<String, String> sign) {
        Entry a = latest;
        if (a != null && a.path.equals(path)) {
            return a.header;
        }
        Entry b = previous;
        if (b != null && b.path.equals(path)) {
            return b.header;
        }
        String header = sign.apply(path);
        previous = a;
        latest = new Entry(path, header);
        return header;
    }
}
