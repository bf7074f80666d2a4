package io.outpost.client;

import java.time.Duration;

/** What the client did and decided, one event per step; see {@link EventListener}. */
public sealed interface ClientEvent {

    /** What the client does after a failed attempt. */
    enum Decision {
        /** Same route again, asking caches to revalidate (max-age=0). */
        REFRESH_SOFT,
        /** Same route again, asking caches to reload (no-cache). */
        REFRESH_HARD,
        /** Next server through the same proxy (or directly); after the last server, the next proxy. */
        NEXT_SERVER,
        /** Skip the remaining servers of this proxy: the proxy itself is unreachable. */
        NEXT_PROXY,
        /** Stop: the error is final (4xx) or nothing is left to try. */
        GIVE_UP
    }

    /** An HTTP request is about to be sent. */
    record AttemptStarted(String path, Route route, Refresh refresh) implements ClientEvent {
    }

    /** An attempt failed; {@code status} is the HTTP status or 0. */
    record AttemptFailed(String path, Route route, Refresh refresh, OutpostException.Kind kind, int status,
                         String detail, Decision decision) implements ClientEvent {
    }

    /** An attempt produced a whole, valid answer (or, for streams, a valid header). */
    record AttemptSucceeded(String path, Route route, Refresh refresh, int status) implements ClientEvent {
    }

    /** Every route failed; the client waits before the next pass over them. */
    record Backoff(String path, int pass, Duration delay) implements ClientEvent {
    }

    /** The answer came from the in-process cache. */
    record CacheHit(String path) implements ClientEvent {
    }
}
