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
        /** Stop: the error is final (4xx, interrupted); no other route would answer otherwise. */
        GIVE_UP
    }

    /** Why an attempt failed, in the words of docs/client-failover.md's table (and of testdata/failover). */
    enum Reason {
        /** Could not connect to the proxy, or (directly) to the server: refused, unreachable, connect timeout. */
        CONNECT_FAILED,
        /** HTTP 5xx from the server, or from the proxy that cannot reach it. */
        SERVER_ERROR,
        /** Connected, then the transfer broke or timed out (read timeout, attempttimeout), or no HTTP answer. */
        TRANSFER_FAILED,
        /** A corrupt, truncated or too large answer. */
        CORRUPT,
        /** An answer older than the server allows (its Age over its max-age). */
        STALE,
        /** security=sig and the answer (or a redirect) is not signed as it must be, or not the one asked for. */
        UNSIGNED,
        /** HTTP 4xx: the query is wrong. */
        REQUEST_ERROR
    }

    /** An HTTP request is about to be sent. */
    record AttemptStarted(String path, Route route, Refresh refresh) implements ClientEvent {
    }

    /** An attempt failed; {@code status} is the HTTP status or 0. */
    record AttemptFailed(String path, Route route, Refresh refresh, OutpostException.Kind kind, Reason reason,
                         int status, String detail, Decision decision) implements ClientEvent {
    }

    /** An attempt produced a whole, valid answer (or, for streams, a valid header). */
    record AttemptSucceeded(String path, Route route, Refresh refresh, int status) implements ClientEvent {
    }

    /** Every route failed; the client waits before the next pass over them. */
    record Backoff(String path, int pass, Duration delay) implements ClientEvent {
    }

    /** Every route of every pass failed: the request fails with {@code UNAVAILABLE} after {@code attempts}. */
    record GaveUp(String path, int attempts) implements ClientEvent {
    }

    /** The answer came from the in-process cache. */
    record CacheHit(String path) implements ClientEvent {
    }
}
