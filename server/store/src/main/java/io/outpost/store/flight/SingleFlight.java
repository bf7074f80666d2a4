package io.outpost.store.flight;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Single flight over a map of futures (typically a cache's map view): of the callers that want the same key at the
 * same time one computes the value (it leads) and the others wait, bounded, for its result (they join). The map is
 * the caller's, so a finished flight stays as the cached value until the caller's cache drops it.
 */
public final class SingleFlight<K, V> {
    private final ConcurrentMap<K, CompletableFuture<V>> flights;

    public SingleFlight(ConcurrentMap<K, CompletableFuture<V>> flights) {
        this.flights = flights;
    }

    /**
     * This caller's turn at {@code key}: it leads a new flight if none is there (and must then {@link Turn#land} or
     * {@link Turn#drop} it), else it joins the one there, finished or not.
     */
    public Turn<K, V> turn(K key) {
        CompletableFuture<V> existing = flights.get(key);
        if (existing == null) {
            CompletableFuture<V> fresh = new CompletableFuture<>();
            existing = flights.putIfAbsent(key, fresh);
            if (existing == null) {
                return new Turn<>(flights, key, fresh, true, false);
            }
        }
        return new Turn<>(flights, key, existing, false, existing.isDone());
    }

    /** A new flight for {@code key} that this caller leads, or null when one is already there. */
    public Turn<K, V> claim(K key) {
        if (flights.containsKey(key)) {
            return null;
        }
        CompletableFuture<V> fresh = new CompletableFuture<>();
        return flights.putIfAbsent(key, fresh) == null ? new Turn<>(flights, key, fresh, true, false) : null;
    }

    /** How a wait for another caller's flight ended. */
    public sealed interface Waited<V> {
        /** The flight landed with {@code value}. */
        record Done<V>(V value) implements Waited<V> {
        }

        /** The leader failed with {@code cause}. */
        record Failed<V>(Throwable cause) implements Waited<V> {
        }

        /** The flight was still running after the bounded wait. */
        record TimedOut<V>() implements Waited<V> {
        }

        /** The waiting thread was interrupted (its interrupt flag is set again). */
        record Interrupted<V>() implements Waited<V> {
        }
    }

    /** One caller's part in a flight: leading it, or joining it. */
    public static final class Turn<K, V> {
        private final ConcurrentMap<K, CompletableFuture<V>> flights;
        private final K key;
        private final CompletableFuture<V> future;
        private final boolean leads;
        private final boolean wasDone;

        private Turn(ConcurrentMap<K, CompletableFuture<V>> flights, K key, CompletableFuture<V> future, boolean leads,
                boolean wasDone) {
            this.flights = flights;
            this.key = key;
            this.future = future;
            this.leads = leads;
            this.wasDone = wasDone;
        }

        /** True if this caller computes the value for the others. */
        public boolean leads() {
            return leads;
        }

        /** True if the joined flight had already landed when it was found (a plain read of a kept value). */
        public boolean wasDone() {
            return wasDone;
        }

        /** The joined flight's value, waiting at most {@code maxWaitMillis} for it. */
        public Waited<V> await(long maxWaitMillis) {
            try {
                return new Waited.Done<>(future.get(maxWaitMillis, TimeUnit.MILLISECONDS));
            } catch (ExecutionException e) {
                return new Waited.Failed<>(e.getCause());
            } catch (TimeoutException e) {
                return new Waited.TimedOut<>();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return new Waited.Interrupted<>();
            }
        }

        /** {@link #await}'s value, or null when the flight failed, did not land in time, or the wait was interrupted. */
        public V awaitOrNull(long maxWaitMillis) {
            return await(maxWaitMillis) instanceof Waited.Done<V> d ? d.value() : null;
        }

        /** Removes the joined flight (its value is out of date), unless another has replaced it meanwhile. */
        public void forget() {
            flights.remove(key, future);
        }

        /** The leader's result: kept in the map and handed to every caller waiting for it. */
        public void land(V value) {
            future.complete(value);
        }

        /** Puts the landed flight again, for a map that weighs its entries only when they are put. */
        public void reput() {
            flights.replace(key, future, future);
        }

        /** The leader gives up: nothing is kept, and the callers waiting are handed {@code forWaiters}. */
        public void drop(V forWaiters) {
            flights.remove(key, future);
            future.complete(forWaiters);
        }

        /** The leader failed: nothing is kept, and the callers waiting see {@code cause}. */
        public void fail(Throwable cause) {
            flights.remove(key, future);
            future.completeExceptionally(cause);
        }
    }
}
