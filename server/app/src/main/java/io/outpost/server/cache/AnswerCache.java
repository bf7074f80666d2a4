package io.outpost.server.cache;

import com.github.benmanes.caffeine.cache.AsyncCache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.cache.CaffeineCacheMetrics;
import io.outpost.server.config.OutpostProperties;
import io.outpost.store.flight.SingleFlight;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.springframework.stereotype.Component;

/**
 * Encoded answers keyed by canonical URL, bounded in bytes (Caffeine). Identical concurrent requests share one
 * computation: the first caller loads in its own thread, the others wait for its result (single flight). A
 * failed load is removed at once, so errors are never cached; an answer of an older generation is dropped.
 */
@Component
public class AnswerCache {
    private final AsyncCache<String, Answer> cache;
    private final SingleFlight<String, Answer> flights;
    private final Counter loads;
    private final Counter hits;
    private final Counter joins;

    public AnswerCache(OutpostProperties props, MeterRegistry registry) {
        this.cache = Caffeine.newBuilder()
                .maximumWeight(props.cache().maxSize().toBytes())
                .weigher(AnswerCache::heapBytes)
                .recordStats()
                .buildAsync();
        this.flights = new SingleFlight<>(cache.asMap());
        CaffeineCacheMetrics.monitor(registry, cache, "answers");
        Gauge.builder("outpost.cache.bytes", cache, c -> c.synchronous().policy().eviction()
                .map(e -> e.weightedSize().orElse(0L)).orElse(0L)).description("bytes of answers held").register(registry);
        this.loads = Counter.builder("outpost.cache.loads").description("answers computed (from held rows or the database)").register(registry);
        this.hits = Counter.builder("outpost.cache.hits").description("answers served from memory").register(registry);
        this.joins = Counter.builder("outpost.singleflight.joins")
                .description("requests that waited for an identical request's database query").register(registry);
    }

    /**
     * What an entry takes of the heap, so that the byte bound holds for small answers too: the body and the key,
     * and per answer about nine strings of header values (each ~40 bytes of object and array headers plus its
     * characters) and ~400 bytes of objects (Answer, Headers, future, Caffeine and map nodes). Weighing only body
     * and key let 256 MB of weight hold ~3x that in tiny answers (a heap histogram showed ~1.3 KB per entry of a
     * 150-byte count answer) and ran a 512 MB heap out of memory under a stream of distinct misses.
     */
    static int heapBytes(String key, Answer a) {
        Answer.Headers h = a.headers();
        long bytes = 400 + 16L + a.body().length + chars(key) + chars(a.contentType()) + chars(a.generation());
        if (h != null) {
            bytes += chars(h.folder()) + chars(h.etag()) + chars(h.lastModified()) + chars(h.cacheControl())
                    + chars(h.cacheControlAllowingStale()) + chars(h.rows()) + chars(h.validSince())
                    + chars(h.validUntil()) + 32; // the signature memo (empty unless answers are signed)
        }
        return (int) Math.min(Integer.MAX_VALUE, bytes);
    }

    private static long chars(String s) {
        return s == null ? 0 : 40L + s.length();
    }

    /** Exceptions a waiting caller sees. */
    public static final class WaitTimeout extends RuntimeException {
        WaitTimeout(String message) {
            super(message);
        }
    }

    /**
     * The answer for {@code key} at {@code generation}: from memory, from an identical request in flight, or
     * computed by {@code loader} in this thread. Waiting for another request is bounded by {@code maxWaitMillis}.
     */
    public Answer get(String key, String generation, Supplier<Answer> loader, long maxWaitMillis) {
        CompletableFuture<Answer> present = cache.getIfPresent(key);
        if (present != null && present.isDone() && !present.isCompletedExceptionally()) {
            Answer a = present.join();
            if (a.generation().equals(generation)) {
                hits.increment();
                return a;
            }
        }
        for (int attempt = 0; attempt < 2; attempt++) {
            SingleFlight.Turn<String, Answer> turn = flights.turn(key);
            if (turn.leads()) {
                return load(turn, loader);
            }
            Answer a = await(turn, maxWaitMillis);
            if (a.generation().equals(generation)) {
                if (turn.wasDone()) {
                    hits.increment();
                }
                return a;
            }
            turn.forget();
        }
        return loadWithoutStoring(loader);
    }

    /** Computes an answer that is not kept (the request said no-store); counted as a load. */
    public Answer loadWithoutStoring(Supplier<Answer> loader) {
        loads.increment();
        return loader.get();
    }

    private Answer load(SingleFlight.Turn<String, Answer> turn, Supplier<Answer> loader) {
        loads.increment();
        try {
            Answer a = loader.get();
            turn.land(a);
            return a;
        } catch (RuntimeException | Error e) {
            turn.fail(e);
            throw e;
        }
    }

    private Answer await(SingleFlight.Turn<String, Answer> turn, long maxWaitMillis) {
        if (!turn.wasDone()) {
            joins.increment();
        }
        return switch (turn.await(maxWaitMillis)) {
            case SingleFlight.Waited.Done<Answer> done -> done.value();
            case SingleFlight.Waited.Failed<Answer> failed -> throw failed.cause() instanceof RuntimeException r
                    ? r : new IllegalStateException(failed.cause());
            case SingleFlight.Waited.TimedOut<Answer> t ->
                    throw new WaitTimeout("an identical query has been running for over " + maxWaitMillis + " ms");
            case SingleFlight.Waited.Interrupted<Answer> i ->
                    throw new WaitTimeout("interrupted while waiting for an identical query");
        };
    }

    /** The cached answer if present and complete (for 304 decisions), else null. */
    public Answer peek(String key) {
        CompletableFuture<Answer> f = cache.getIfPresent(key);
        return f != null && f.isDone() && !f.isCompletedExceptionally() ? f.join() : null;
    }

    public void clear() {
        cache.synchronous().invalidateAll();
    }
}
