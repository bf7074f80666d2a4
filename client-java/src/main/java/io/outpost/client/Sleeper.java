package io.outpost.client;

import java.time.Duration;

/** Waits between retry passes; tests pass one that records instead of sleeping. */
@FunctionalInterface
public interface Sleeper {
    Sleeper SYSTEM = d -> Thread.sleep(d);

    void sleep(Duration d) throws InterruptedException;
}
