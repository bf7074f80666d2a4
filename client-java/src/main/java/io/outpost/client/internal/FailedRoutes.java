package io.outpost.client.internal;

import io.outpost.client.Endpoint;
import io.outpost.client.Route;
import io.outpost.client.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Endpoints that failed recently (OkHttp's RouteDatabase). A failed endpoint is postponed, not dropped: it moves
 * behind the healthy ones until it succeeds again or its memory expires (Frontier resets its error flags every
 * 5 minutes). Thread-safe.
 */
public final class FailedRoutes {
    private final Map<Endpoint, Long> failedAt = new ConcurrentHashMap<>();
    private final Ticker ticker;
    private final long memoryNanos;

    public FailedRoutes(Ticker ticker, Duration memory) {
        this.ticker = ticker;
        this.memoryNanos = memory.toNanos();
    }

    public void failed(Endpoint e) {
        failedAt.put(e, ticker.read());
    }

    /** A route worked: its server and proxy are healthy again. */
    public void connected(Route r) {
        failedAt.remove(r.server());
        if (r.proxy() != null) {
            failedAt.remove(r.proxy());
        }
    }

    public boolean isPostponed(Endpoint e) {
        Long at = failedAt.get(e);
        if (at == null) {
            return false;
        }
        if (ticker.read() - at >= memoryNanos) {
            failedAt.remove(e, at);
            return false;
        }
        return true;
    }

    /** The endpoints with the postponed ones moved to the back, each part keeping its order. */
    public List<Endpoint> order(List<Endpoint> endpoints) {
        List<Endpoint> good = new ArrayList<>(endpoints.size());
        List<Endpoint> bad = new ArrayList<>();
        for (Endpoint e : endpoints) {
            (isPostponed(e) ? bad : good).add(e);
        }
        good.addAll(bad);
        return good;
    }
}
