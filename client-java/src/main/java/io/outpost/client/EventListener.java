package io.outpost.client;

/**
 * Receives every {@link ClientEvent}, synchronously on the calling thread, so it must be fast and thread-safe.
 * Useful for logging and for tests asserting the order of failover decisions.
 */
@FunctionalInterface
public interface EventListener {
    /** Ignores everything. */
    EventListener NONE = event -> { };

    void onEvent(ClientEvent event);
}
