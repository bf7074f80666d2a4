package io.outpost.client.internal;

import io.outpost.client.ClientConfig;
import io.outpost.client.ClientEvent;
import io.outpost.client.ClientEvent.Decision;
import io.outpost.client.Endpoint;
import io.outpost.client.EventListener;
import io.outpost.client.OutpostException;
import io.outpost.client.OutpostException.Kind;
import io.outpost.client.Refresh;
import io.outpost.client.Route;
import io.outpost.client.Sleeper;
import io.outpost.client.Ticker;
import io.outpost.client.pac.ProxyDiscovery;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.random.RandomGenerator;

/**
 * Runs one GET over the routes of a {@link RoutePlanner} until an attempt yields a valid answer, following
 * docs/client-failover.md. The policy is {@link #decide}; this class only carries it out: refresh on the same
 * route, next server, next proxy, and after a whole pass a jittered backoff and another pass, at most
 * {@code retries} times. One attempt on one route (the request, its signed redirects, the answer judged) is a
 * {@link RouteAttempt}. Thread-safe; the only shared state is {@link FailedRoutes}.
 */
public final class Failover {
    /** Upper bound on attempts of one call whatever the configuration, so a call always ends. */
    public static final int MAX_ATTEMPTS = 200;
    /**
     * The longest request path sent. The service reads at most 32 KB of request head and Squid 8 KB URLs, so a
     * longer path can never be answered; refusing it before it is sent also keeps the request within the socket
     * buffers, where {@code HttpURLConnection}, which has no send timeout, could otherwise wait without limit on a
     * peer that does not read.
     */
    public static final int MAX_PATH_CHARS = 64 << 10;
    /** Most redirects followed in one attempt under security=sig (each one verified). */
    public static final int MAX_REDIRECTS = 5;

    /** Turns a 200 response into a result; throws CorruptAnswerException if the answer is not whole. */
    @FunctionalInterface
    public interface Handler<T> {
        T handle(Response response) throws IOException, OutpostException;
    }

    private final ClientConfig config;
    private final Transport transport;
    private final RoutePlanner planner;
    private final FailedRoutes failedRoutes;
    private final EventListener listener;
    private final Ticker ticker;
    private final Sleeper sleeper;
    private final RandomGenerator random;
    private final ReloadPolicy reload;
    private final RouteAttempt routeAttempt;
    private volatile boolean closed;

    public Failover(ClientConfig config, Transport transport, FailedRoutes failedRoutes, EventListener listener,
                    Ticker ticker, Sleeper sleeper, RandomGenerator random, Map<String, String> baseHeaders,
                    ProxyDiscovery discovery) {
        this.config = config;
        this.transport = transport;
        this.failedRoutes = failedRoutes;
        this.planner = new RoutePlanner(config, failedRoutes, random, discovery);
        this.listener = listener;
        this.ticker = ticker;
        this.sleeper = sleeper;
        this.random = random;
        this.reload = ReloadPolicy.of(config.forceReload(), config.maxAgeSecs(), config.freshKey());
        this.routeAttempt = new RouteAttempt(config, transport, listener, baseHeaders, reload);
    }

    /** Closes the transport: no request is sent after it. */
    public void close() {
        closed = true;
        transport.close();
    }

    /** The reload controls of the configuration (the client skips its in-process cache where they apply). */
    public ReloadPolicy reload() {
        return reload;
    }

    /** What went wrong in one attempt. */
    record Failure(Kind kind, int status, boolean connectFailed, String detail, Throwable cause) {
    }

    /**
     * The failover policy: what to do after {@code f} on {@code route} with {@code refresh}. One guard per rule.
     */
    static Decision decide(Failure f, Route route, Refresh refresh) {
        // 4xx: the request itself is wrong (unknown folder, tag, channel, bad range); no route answers otherwise.
        if (f.kind() == Kind.NOT_FOUND || f.kind() == Kind.REJECTED || f.kind() == Kind.INTERRUPTED) {
            return Decision.GIVE_UP;
        }
        // An answer that is not signed as it must be: whatever altered it, this route cannot be trusted for it.
        if (f.kind() == Kind.UNSIGNED) {
            return Decision.NEXT_SERVER;
        }
        // A corrupt, truncated or too old answer may sit in a cache on the way: revalidate it, then reload it.
        if (f.kind() == Kind.CORRUPT || f.kind() == Kind.STALE) {
            if (refresh == Refresh.NONE) {
                return Decision.REFRESH_SOFT;
            }
            if (refresh == Refresh.SOFT) {
                return Decision.REFRESH_HARD;
            }
            return Decision.NEXT_SERVER;
        }
        // The proxy cannot be reached: no server behind it can be either.
        if (f.connectFailed() && !route.isDirect()) {
            return Decision.NEXT_PROXY;
        }
        // The server failed (5xx, unreachable directly, timed out): the next server on the same path.
        return Decision.NEXT_SERVER;
    }

    /**
     * Sends GET {@code path} until {@code handler} accepts an answer.
     *
     * @param keepOpen if true the response is not closed after success (the handler streams from it)
     */
    public <T> T execute(String path, Handler<T> handler, boolean keepOpen) throws OutpostException {
        if (closed) {
            throw new IllegalStateException("the client is closed");
        }
        if (path.length() > MAX_PATH_CHARS) {
            throw new OutpostException(Kind.REJECTED, "not sent: the request path is " + path.length()
                    + " characters long, more than any server or proxy accepts (" + MAX_PATH_CHARS + ")");
        }
        long start = ticker.read();
        List<OutpostException> failures = new ArrayList<>();
        // the proxies tried, wherever they came from: configured, backup, or a proxy auto-config file's answer
        Set<Endpoint> proxiesTried = new HashSet<>();
        Failure last = null;
        int attempts = 0;
        for (int pass = 0; pass <= config.retries(); pass++) {
            if (pass > 0) {
                backoff(path, pass);
            }
            for (List<Route> group : planner.plan()) {
                routes:
                for (Route route : group) {
                    if (!route.isDirect()) {
                        proxiesTried.add(route.proxy());
                    }
                    Refresh refresh = reload.initialRefresh(path);
                    while (true) {
                        attempts++;
                        RouteAttempt.Result<T> a = routeAttempt.run(path, route, refresh, handler, keepOpen);
                        if (a.failure() == null) {
                            failedRoutes.connected(route);
                            return a.value();
                        }
                        last = a.failure();
                        failures.add(new OutpostException(last.kind(), route + " " + refreshLabel(refresh) + ": "
                                + last.detail(), last.status(), last.cause()));
                        Decision d = decide(last, route, refresh);
                        listener.onEvent(new ClientEvent.AttemptFailed(path, route, refresh, last.kind(),
                                reason(last), last.status(), last.detail(), d));
                        if (attempts >= MAX_ATTEMPTS && d != Decision.GIVE_UP) {
                            listener.onEvent(new ClientEvent.GaveUp(path, attempts));
                            throw giveUp(path, last, failures, attempts, proxiesTried.size(), start);
                        }
                        switch (d) {
                            case GIVE_UP -> throw giveUp(path, last, failures, attempts, proxiesTried.size(), start);
                            case REFRESH_SOFT -> refresh = Refresh.SOFT;
                            case REFRESH_HARD -> refresh = Refresh.HARD;
                            case NEXT_SERVER -> {
                                if (last.kind() != Kind.CORRUPT && last.kind() != Kind.STALE
                                        && last.kind() != Kind.UNSIGNED) {
                                    failedRoutes.failed(route.server());
                                }
                                continue routes;
                            }
                            case NEXT_PROXY -> {
                                failedRoutes.failed(route.proxy());
                                break routes;
                            }
                        }
                    }
                }
            }
        }
        listener.onEvent(new ClientEvent.GaveUp(path, attempts));
        throw giveUp(path, last, failures, attempts, proxiesTried.size(), start);
    }

    /** The failure in the words of the event vocabulary. */
    static ClientEvent.Reason reason(Failure f) {
        if (f.connectFailed()) {
            return ClientEvent.Reason.CONNECT_FAILED;
        }
        return switch (f.kind()) {
            case NOT_FOUND, REJECTED -> ClientEvent.Reason.REQUEST_ERROR;
            case CORRUPT -> ClientEvent.Reason.CORRUPT;
            case STALE -> ClientEvent.Reason.STALE;
            case UNSIGNED -> ClientEvent.Reason.UNSIGNED;
            default -> f.status() >= 500 ? ClientEvent.Reason.SERVER_ERROR : ClientEvent.Reason.TRANSFER_FAILED;
        };
    }

    /** The max-age of a Cache-Control value, or -1. */
    public static long maxAge(String cacheControl) {
        if (cacheControl == null) {
            return -1;
        }
        for (String part : cacheControl.split(",")) {
            String p = part.strip();
            if (p.regionMatches(true, 0, "max-age=", 0, 8)) {
                try {
                    return Long.parseLong(p.substring(8).replace("\"", "").strip());
                } catch (NumberFormatException e) {
                    return -1;
                }
            }
        }
        return -1;
    }

    private void backoff(String path, int pass) throws OutpostException {
        long base = config.backoffBase().toNanos();
        long cap = config.backoffMax().toNanos();
        long d = base == 0 ? 0 : Math.min(cap, base << Math.min(pass - 1, 30));
        long delay;
        synchronized (random) {
            delay = d == 0 ? 0 : random.nextLong(d + 1); // full jitter: uniform in [0, d]
        }
        Duration wait = Duration.ofNanos(delay);
        listener.onEvent(new ClientEvent.Backoff(path, pass, wait));
        try {
            sleeper.sleep(wait);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new OutpostException(Kind.INTERRUPTED, "interrupted while waiting to retry " + path);
        }
    }

    private OutpostException giveUp(String path, Failure last, List<OutpostException> failures, int attempts,
                                    int proxies, long start) {
        long ms = (ticker.read() - start) / 1_000_000;
        String msg = last.status() >= 400 && last.status() < 500
                ? "GET " + path + ": " + last.detail()
                : "GET " + path + " failed: " + attempts + " attempt(s) over " + config.servers().size()
                        + " server(s) and " + proxies + " proxy(ies) in " + ms + " ms; last: " + last.detail();
        // Exhausting the routes is UNAVAILABLE whatever the last attempt saw; each attempt keeps its own kind.
        Kind kind = last.kind() == Kind.NOT_FOUND || last.kind() == Kind.REJECTED || last.kind() == Kind.INTERRUPTED
                ? last.kind() : Kind.UNAVAILABLE;
        OutpostException e = new OutpostException(kind, msg, last.status(), last.cause());
        failures.forEach(e::addSuppressed);
        return e;
    }

    private static String refreshLabel(Refresh r) {
        return r == Refresh.NONE ? "plain" : r.cacheControl();
    }
}
