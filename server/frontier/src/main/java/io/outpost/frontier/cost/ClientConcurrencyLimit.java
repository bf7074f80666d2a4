package io.outpost.frontier.cost;

import jakarta.servlet.http.HttpServletRequest;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Counts the requests each client has running, so that one client cannot take all of a context's threads and
 * connections. A client is the address its request comes from: the socket's peer, or the address a configured
 * trusted proxy forwarded (the server resolves that before the servlet runs). Nothing the client writes in its
 * request (X-Frontier-Id, an X-Forwarded-For of its own) changes its key, so no client can pick a fresh limit.
 */
public final class ClientConcurrencyLimit {
    private final int max;
    private final ConcurrentHashMap<String, Integer> running = new ConcurrentHashMap<>();

    ClientConcurrencyLimit(int max) {
        this.max = max;
    }

    public static String clientKey(HttpServletRequest request) {
        return request.getRemoteAddr();
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
