package io.outpost.frontier.cost;

import java.util.concurrent.ConcurrentHashMap;

/**
 * Counts the requests each client has running, so that one client cannot take all of a context's threads and
 * connections. A client is its X-Frontier-Id together with the address it comes from (the first
 * X-Forwarded-For entry when a proxy such as Squid forwards the request).
 */
public final class ClientConcurrencyLimit {
    private final int max;
    private final ConcurrentHashMap<String, Integer> running = new ConcurrentHashMap<>();

    ClientConcurrencyLimit(int max) {
        this.max = max;
    }

    public static String clientKey(String frontierId, String forwardedFor, String remoteAddress) {
        String origin = remoteAddress;
        if (forwardedFor != null && !forwardedFor.isBlank()) {
            int comma = forwardedFor.indexOf(',');
            origin = (comma < 0 ? forwardedFor : forwardedFor.substring(0, comma)).strip();
        }
        return origin + " " + frontierId;
    }

    /** True if the client may start one more request; then {@link #release} must follow. */
    boolean tryAcquire(String client) {
        if (max <= 0) {
            return true;
        }
        boolean[] ok = {false};
        running.compute(client, (k, n) -> {
            int now = n == null ? 0 : n;
            if (now >= max) {
                return n;
            }
            ok[0] = true;
            return now + 1;
        });
        return ok[0];
    }

    void release(String client) {
        if (max <= 0) {
            return;
        }
        running.computeIfPresent(client, (k, n) -> n <= 1 ? null : n - 1);
    }

    /** Clients with requests running (for tests and metrics). */
    int activeClients() {
        return running.size();
    }
}
