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
import io.outpost.wire.CorruptAnswerException;
import java.io.IOException;
import java.io.InputStream;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.random.RandomGenerator;

/**
 * Runs one GET over the routes of a {@link RoutePlanner} until an attempt yields a valid answer, following
 * docs/client-failover.md. The policy is {@link #decide}; this class only carries it out: refresh on the same
 * route, next server, next proxy, and after a whole pass a jittered backoff and another pass, at most
 * {@code retries} times. Thread-safe; the only shared state is {@link FailedRoutes}.
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
    /** Longest error body kept for the exception message. */
    private static final int MAX_ERROR_BODY = 2048;
    /** Most redirects followed in one attempt under security=sig (each one verified). */
    public static final int MAX_REDIRECTS = 5;
    /** Longest redirect body read (to hash it: a service redirect has none). */
    private static final int MAX_REDIRECT_BODY = 64 << 10;

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
    private final Map<String, String> baseHeaders;
    private final ReloadPolicy reload;
    /**
     * Non-null with security=sig: every hop is verified; a whole answer's handler result is used only once the body
     * it read verifies, a streamed answer is read whole and verified before its handler sees it.
     */
    private final AnswerVerifier verifier;
    private volatile boolean closed;

    public Failover(ClientConfig config, Transport transport, FailedRoutes failedRoutes, EventListener listener,
                    Ticker ticker, Sleeper sleeper, RandomGenerator random, Map<String, String> baseHeaders,
                    ProxyDiscovery discovery) {
        this.verifier = config.signedAnswers() ? AnswerVerifier.of(config.verifyKeys(), config.acceptSig1()) : null;
        this.config = config;
        this.transport = transport;
        this.failedRoutes = failedRoutes;
        this.planner = new RoutePlanner(config, failedRoutes, random, discovery);
        this.listener = listener;
        this.ticker = ticker;
        this.sleeper = sleeper;
        this.random = random;
        this.baseHeaders = Map.copyOf(baseHeaders);
        this.reload = ReloadPolicy.of(config.forceReload(), config.maxAgeSecs(), config.freshKey());
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
                        Attempt<T> a = attempt(path, route, refresh, handler, keepOpen);
                        if (a.failure == null) {
                            failedRoutes.connected(route);
                            return a.value;
                        }
                        last = a.failure;
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

    private record Attempt<T>(T value, Failure failure) {
    }

    private <T> Attempt<T> attempt(String path, Route route, Refresh refresh, Handler<T> handler, boolean keepOpen) {
        listener.onEvent(new ClientEvent.AttemptStarted(path, route, refresh));
        Map<String, String> headers = new LinkedHashMap<>(baseHeaders);
        if (refresh.cacheControl() != null) {
            headers.put("Cache-Control", refresh.cacheControl());
        } else if (reload.plainCacheControl() != null) {
            headers.put("Cache-Control", reload.plainCacheControl());
        }
        if (refresh == Refresh.HARD) {
            headers.put("Pragma", "no-cache");
        }
        Response response = null;
        String target = path;
        for (int hop = 0; response == null; hop++) {
            Response r;
            try {
                r = transport.get(route, target, headers);
            } catch (Transport.ConnectFailedException e) {
                Kind kind = e.getCause() instanceof SocketTimeoutException ? Kind.TIMEOUT : Kind.UNAVAILABLE;
                return new Attempt<>(null, new Failure(kind, 0, true, e.getMessage(), e));
            } catch (AttemptDeadline.AttemptTimeoutException e) {
                return new Attempt<>(null, new Failure(Kind.TIMEOUT, 0, false, e.getMessage(), e));
            } catch (SocketTimeoutException e) {
                return new Attempt<>(null, new Failure(Kind.TIMEOUT, 0, false, "no answer within the read timeout", e));
            } catch (java.net.ProtocolException e) {
                // The JDK's bound on header lines (jdk.http.maxHeaderSize): an answer, but not a usable one, as the
                // C++ and Python clients count it.
                Kind kind = e.getMessage() != null && e.getMessage().startsWith("Header size too big") ? Kind.CORRUPT
                        : Kind.UNAVAILABLE;
                String what = kind == Kind.CORRUPT ? "corrupt answer: its headers are too large: " : "no HTTP answer: ";
                return new Attempt<>(null, new Failure(kind, 0, false, what + e.getMessage(), e));
            } catch (IOException | RuntimeException e) {
                return new Attempt<>(null, new Failure(Kind.UNAVAILABLE, 0, false, "no HTTP answer: " + e, e));
            }
            if (verifier == null || !isRedirect(r.status())) {
                response = r;
                continue;
            }
            // Under security=sig a redirect is followed only when signed for the target asked at this hop.
            Endpoint named = route.isDirect() || config.logicalServer() == null ? route.server() : config.logicalServer();
            Redirect next = signedRedirect(r, hop, named.basePath());
            if (next.failure != null) {
                return new Attempt<>(null, next.failure);
            }
            target = next.target;
        }
        boolean success = false;
        try {
            int status = response.status();
            if (status >= 400) {
                Kind kind = status >= 500 ? Kind.UNAVAILABLE : status == 404 ? Kind.NOT_FOUND : Kind.REJECTED;
                return new Attempt<>(null, new Failure(kind, status, false, "HTTP " + status + errorBody(response),
                        null));
            }
            if (status != 200) {
                return new Attempt<>(null, new Failure(Kind.UNAVAILABLE, status, false,
                        "unexpected HTTP " + status, null));
            }
            if (response.contentLength() > config.maxAnswerBytes()) {
                return new Attempt<>(null, new Failure(Kind.CORRUPT, status, false, "answer of "
                        + response.contentLength() + " bytes (Content-Length) is larger than maxanswerbytes ("
                        + config.maxAnswerBytes() + ")", null));
            }
            String stale = staleness(response);
            if (stale != null) {
                return new Attempt<>(null, new Failure(Kind.STALE, status, false, stale, null));
            }
            T value;
            if (verifier != null) {
                AnswerVerifier.Check refused = verifier.headerProblem(status, response.header(AnswerVerifier.HEADER));
                if (refused != null) {
                    return new Attempt<>(null, new Failure(Kind.UNSIGNED, status, false, refused.problem(), null));
                }
                if (keepOpen) {
                    // a stream hands rows out as they arrive: it is read whole and verified before the first one
                    SignedResponse whole = SignedResponse.read(response);
                    AnswerVerifier.Check check = verify(whole, status, whole.sha256());
                    if (!check.ok()) {
                        return new Attempt<>(null, new Failure(Kind.UNSIGNED, status, false, check.problem(), null));
                    }
                    response = whole;
                    value = handler.handle(response);
                } else {
                    // decoded as it arrives and hashed on the way; the result is used only if the signature verifies
                    DigestingResponse hashed = new DigestingResponse(response);
                    try {
                        value = handler.handle(hashed);
                    } catch (CorruptAnswerException | OutpostException e) {
                        AnswerVerifier.Check check = verify(hashed, status, hashed.sha256());
                        if (!check.ok()) { // not the service's answer: that is the cause, whatever else is wrong
                            return new Attempt<>(null, new Failure(Kind.UNSIGNED, status, false, check.problem(),
                                    null));
                        }
                        throw e;
                    }
                    AnswerVerifier.Check check = verify(hashed, status, hashed.sha256());
                    if (!check.ok()) {
                        return new Attempt<>(null, new Failure(Kind.UNSIGNED, status, false, check.problem(), null));
                    }
                }
            } else {
                value = handler.handle(response);
            }
            success = true;
            listener.onEvent(new ClientEvent.AttemptSucceeded(path, route, refresh, status));
            return new Attempt<>(value, null);
        } catch (CorruptAnswerException e) {
            return new Attempt<>(null, new Failure(Kind.CORRUPT, 200, false, e.getMessage(), e));
        } catch (AttemptDeadline.AttemptTimeoutException e) {
            return new Attempt<>(null, new Failure(Kind.TIMEOUT, 200, false, e.getMessage(), e));
        } catch (SocketTimeoutException e) {
            return new Attempt<>(null, new Failure(Kind.TIMEOUT, 200, false, "read timeout in the answer", e));
        } catch (java.net.SocketException e) {
            // Reset or broken connection: the transfer broke (not a bad copy in a cache).
            return new Attempt<>(null, new Failure(Kind.UNAVAILABLE, 200, false, "transfer broke: " + e, e));
        } catch (IOException e) {
            // The JDK reports a connection closed before Content-Length as an IOException ("Premature EOF"):
            // a truncated answer.
            return new Attempt<>(null, new Failure(Kind.CORRUPT, 200, false, "truncated answer: " + e, e));
        } catch (OutpostException e) {
            return new Attempt<>(null, new Failure(e.kind(), 200, false, e.getMessage(), e));
        } finally {
            if (!success) {
                response.abort(); // the connection may hold the rest of a bad answer: never reuse it
            } else if (!keepOpen) {
                response.close(); // read to the end: back to the keep-alive pool
            }
        }
    }

    private AnswerVerifier.Check verify(Response r, int status, byte[] sha256) {
        return verifier.check(r.target(), status, null, r.header("ETag"), r.header(AnswerVerifier.HEADER), sha256,
                System.currentTimeMillis() / 1000);
    }

    private record Redirect(String target, Failure failure) {
    }

    static boolean isRedirect(int status) {
        return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
    }

    /**
     * The next target of a redirect that verifies for the target asked at this hop, or why it is refused (an
     * unsigned or badly signed redirect is refused like a bad answer). The redirect's connection is given up.
     */
    private Redirect signedRedirect(Response r, int hop, String basePath) {
        int status = r.status();
        try {
            if (hop >= MAX_REDIRECTS) {
                return new Redirect(null, new Failure(Kind.UNAVAILABLE, status, false, "more than " + MAX_REDIRECTS
                        + " redirects", null));
            }
            String location = r.header("Location");
            java.security.MessageDigest digest = AnswerVerifier.bodyDigest();
            try (InputStream in = r.body()) {
                byte[] b = in.readNBytes(MAX_REDIRECT_BODY);
                digest.update(b);
            }
            AnswerVerifier.Check check = verifier.check(r.target(), status, location, r.header("ETag"),
                    r.header(AnswerVerifier.HEADER), digest.digest(), System.currentTimeMillis() / 1000);
            if (!check.ok()) {
                return new Redirect(null, new Failure(Kind.UNSIGNED, status, false, "redirect to "
                        + (location == null ? "nowhere" : abbreviate(location)) + " refused: " + check.problem(), null));
            }
            String next = nextTarget(location, basePath);
            if (next == null) {
                return new Redirect(null, new Failure(Kind.UNSIGNED, status, false, "signed redirect to '"
                        + abbreviate(location) + "', which is no path on this server", null));
            }
            return new Redirect(next, null);
        } catch (IOException e) {
            return new Redirect(null, new Failure(Kind.UNAVAILABLE, status, false, "redirect broke: " + e, e));
        } finally {
            r.abort();
        }
    }

    /**
     * The API path a Location names on the same server: its path and query below the server's base path (an
     * absolute URL's host is that of the route, which the signature covered); null when it is none.
     */
    static String nextTarget(String location, String basePath) {
        if (location == null || location.isEmpty()) {
            return null;
        }
        try {
            java.net.URI u = new java.net.URI(location);
            String p = u.getRawPath();
            if (p == null || !p.startsWith("/")) {
                return null;
            }
            if (!basePath.isEmpty() && p.startsWith(basePath + "/")) {
                p = p.substring(basePath.length());
            }
            return u.getRawQuery() == null ? p : p + "?" + u.getRawQuery();
        } catch (java.net.URISyntaxException e) {
            return null;
        }
    }

    private static String abbreviate(String s) {
        return s.length() > 120 ? s.substring(0, 120) + "…" : s;
    }

    /** Why the answer is older than the server allows ({@code Age > max-age}), or null if it is not. */
    static String staleness(Response r) {
        long maxAge = maxAge(r.header("Cache-Control"));
        String age = r.header("Age");
        if (maxAge < 0 || age == null) {
            return null;
        }
        try {
            long a = Long.parseLong(age.strip());
            return a > maxAge ? "answer is " + a + " s old, the server allows " + maxAge + " s" : null;
        } catch (NumberFormatException e) {
            return null;
        }
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

    /** The "detail" (else "title") of an RFC 9457 problem body, as the C++ client reads it; else the body. */
    static String problemDetail(String body) {
        for (String key : new String[] {"\"detail\"", "\"title\""}) {
            int p = body.indexOf(key);
            p = p < 0 ? -1 : body.indexOf(':', p);
            p = p < 0 ? -1 : body.indexOf('"', p);
            if (p < 0) {
                continue;
            }
            StringBuilder out = new StringBuilder();
            for (int i = p + 1; i < body.length() && body.charAt(i) != '"'; i++) {
                if (body.charAt(i) == '\\' && i + 1 < body.length()) {
                    i++;
                }
                out.append(body.charAt(i));
            }
            return out.toString();
        }
        return body;
    }

    private static String errorBody(Response r) {
        try (InputStream in = r.body()) {
            byte[] b = in.readNBytes(MAX_ERROR_BODY);
            String s = problemDetail(new String(b, StandardCharsets.UTF_8).strip());
            return s.isEmpty() ? "" : ": " + s.replaceAll("\\s+", " ");
        } catch (IOException e) {
            return "";
        }
    }
}
