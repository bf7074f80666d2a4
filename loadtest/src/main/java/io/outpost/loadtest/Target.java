package io.outpost.loadtest;

/** Where a mode's requests go. Implementations are thread-safe; {@code seq} numbers requests within a run. */
public interface Target extends AutoCloseable {
    Outcome execute(Query q, long seq) throws Exception;

    Mode mode();

    @Override
    default void close() {
    }
}
