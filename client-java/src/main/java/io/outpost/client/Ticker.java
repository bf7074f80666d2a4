package io.outpost.client;

/** A source of nanoseconds for cache expiry and failed-route memory; tests pass a fake one and never sleep. */
@FunctionalInterface
public interface Ticker {
    Ticker SYSTEM = System::nanoTime;

    long read();
}
