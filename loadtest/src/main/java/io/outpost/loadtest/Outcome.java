package io.outpost.loadtest;

/**
 * A successful request: bytes delivered to the client (HTTP: the answer as sent on the wire; direct: the bytes of
 * the decoded values), rows, and for requests through Squid whether it was a cache hit (null if not known).
 */
public record Outcome(long bytes, long rows, Boolean cacheHit) {
}
