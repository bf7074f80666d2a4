package io.outpost.frontier.cost;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Notices a site's Squid that the service does not trust: when most Frontier requests of a window come from one
 * address that is a cache (the request carries {@code Via}) and not a trusted proxy, its {@code X-Forwarded-For} was
 * not believed, so the per-client limit counts the whole site as one client.
 * Says so once per process; a site then lists its Squids in {@code outpost.trusted-proxies} (docs/operations.md).
 */
public final class UntrustedSquids {
    /** Requests per window; a window's verdict costs one pass over at most {@link #MAX_ADDRESSES} counters. */
    static final int WINDOW = 200;
    /** Addresses counted per window: many addresses that send Via cannot grow the map. */
    static final int MAX_ADDRESSES = 64;

    private final AtomicLong seen = new AtomicLong();
    private final ConcurrentHashMap<String, LongAdder> viaByAddress = new ConcurrentHashMap<>();
    private final AtomicBoolean warned = new AtomicBoolean();

    /**
     * Counts one Frontier request from {@code address}; {@code untrustedCache} when it came through a cache the
     * service does not trust. Returns the warning to log when this request ends a window in which one such cache
     * sent most requests, once per process.
     */
    public String saw(String address, boolean untrustedCache) {
        if (warned.get()) {
            return null;
        }
        if (untrustedCache && (viaByAddress.size() < MAX_ADDRESSES || viaByAddress.containsKey(address))) {
            viaByAddress.computeIfAbsent(address, a -> new LongAdder()).increment();
        }
        if (seen.incrementAndGet() % WINDOW != 0) {
            return null;
        }
        String dominant = null;
        long most = 0;
        for (var e : viaByAddress.entrySet()) {
            long n = e.getValue().sumThenReset();
            if (n > most) {
                most = n;
                dominant = e.getKey();
            }
        }
        viaByAddress.clear();
        if (dominant == null || most * 2 <= WINDOW || !warned.compareAndSet(false, true)) {
            return null;
        }
        return most + " of the last " + WINDOW + " Frontier requests came through the cache at " + dominant
                + " (they carry Via), which is not in outpost.trusted-proxies: the per-client limit"
                + " (MaxRequestsPerClient) counts every job behind it as one client. List the site's Squids in"
                + " outpost.trusted-proxies (docs/operations.md, \"Client addresses and trusted proxies\").";
    }
}
