package io.outpost.client.internal;

import io.outpost.client.ClientConfig;
import io.outpost.client.ClientEvent;
import io.outpost.client.Endpoint;
import io.outpost.client.EventListener;
import io.outpost.client.OutpostException;
import io.outpost.client.OutpostException.Kind;
import io.outpost.client.Refresh;
import io.outpost.client.Route;
import io.outpost.client.internal.Failover.Failure;
import io.outpost.client.internal.Failover.Handler;
import io.outpost.wire.CorruptAnswerException;
import java.io.IOException;
import java.io.InputStream;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One attempt of a GET on one route, for {@link Failover}: the request with its refresh headers, redirects followed
 * under security=sig only when signed, and the answer judged (status, size, age, signature) before the handler's
 * result is taken. Every way it can fail is a {@link Failure} for the failover policy, never an exception.
 */
final class RouteAttempt {
    /** Longest error body kept for the exception message. */
    private static final int MAX_ERROR_BODY = 2048;
    /** Longest redirect body read (to hash it: a service redirect has none). */
    private static final int MAX_REDIRECT_BODY = 64 << 10;

    private final ClientConfig config;
    private final Transport transport;
    private final EventListener listener;
    private final Map<String, String> baseHeaders;
    private final ReloadPolicy reload;
    /**
     * Non-null with security=sig: every hop is verified; a whole answer's handler result is used only once the body
     * it read verifies, a streamed answer is read whole and verified before its handler sees it.
     */
    private final AnswerVerifier verifier;

    RouteAttempt(ClientConfig config, Transport transport, EventListener listener, Map<String, String> baseHeaders,
                 ReloadPolicy reload) {
        this.config = config;
        this.transport = transport;
        this.listener = listener;
        this.baseHeaders = Map.copyOf(baseHeaders);
        this.reload = reload;
        this.verifier = config.signedAnswers() ? AnswerVerifier.of(config.verifyKeys(), config.acceptSig1()) : null;
    }

    /** The handler's result, or why the attempt failed. */
    record Result<T>(T value, Failure failure) {
    }

    <T> Result<T> run(String path, Route route, Refresh refresh, Handler<T> handler, boolean keepOpen) {
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
                return new Result<>(null, new Failure(kind, 0, true, e.getMessage(), e));
            } catch (AttemptDeadline.AttemptTimeoutException e) {
                return new Result<>(null, new Failure(Kind.TIMEOUT, 0, false, e.getMessage(), e));
            } catch (SocketTimeoutException e) {
                return new Result<>(null, new Failure(Kind.TIMEOUT, 0, false, "no answer within the read timeout", e));
            } catch (java.net.ProtocolException e) {
                // The JDK's bound on header lines (jdk.http.maxHeaderSize): an answer, but not a usable one, as the
                // C++ and Python clients count it.
                Kind kind = e.getMessage() != null && e.getMessage().startsWith("Header size too big") ? Kind.CORRUPT
                        : Kind.UNAVAILABLE;
                String what = kind == Kind.CORRUPT ? "corrupt answer: its headers are too large: " : "no HTTP answer: ";
                return new Result<>(null, new Failure(kind, 0, false, what + e.getMessage(), e));
            } catch (IOException | RuntimeException e) {
                return new Result<>(null, new Failure(Kind.UNAVAILABLE, 0, false, "no HTTP answer: " + e, e));
            }
            if (verifier == null || !isRedirect(r.status())) {
                response = r;
                continue;
            }
            // Under security=sig a redirect is followed only when signed for the target asked at this hop.
            Endpoint named = route.isDirect() || config.logicalServer() == null ? route.server() : config.logicalServer();
            Redirect next = signedRedirect(r, hop, named.basePath());
            if (next.failure != null) {
                return new Result<>(null, next.failure);
            }
            target = next.target;
        }
        boolean success = false;
        try {
            int status = response.status();
            if (status >= 400) {
                Kind kind = status >= 500 ? Kind.UNAVAILABLE : status == 404 ? Kind.NOT_FOUND : Kind.REJECTED;
                return new Result<>(null, new Failure(kind, status, false, "HTTP " + status + errorBody(response),
                        null));
            }
            if (status != 200) {
                return new Result<>(null, new Failure(Kind.UNAVAILABLE, status, false,
                        "unexpected HTTP " + status, null));
            }
            if (response.contentLength() > config.maxAnswerBytes()) {
                return new Result<>(null, new Failure(Kind.CORRUPT, status, false, "answer of "
                        + response.contentLength() + " bytes (Content-Length) is larger than maxanswerbytes ("
                        + config.maxAnswerBytes() + ")", null));
            }
            String stale = staleness(response);
            if (stale != null) {
                return new Result<>(null, new Failure(Kind.STALE, status, false, stale, null));
            }
            T value;
            if (verifier != null) {
                AnswerVerifier.Check refused = verifier.headerProblem(status, response.header(AnswerVerifier.HEADER));
                if (refused != null) {
                    return new Result<>(null, new Failure(Kind.UNSIGNED, status, false, refused.problem(), null));
                }
                if (keepOpen) {
                    // a stream hands rows out as they arrive: it is read whole and verified before the first one
                    SignedResponse whole = SignedResponse.read(response);
                    AnswerVerifier.Check check = verify(whole, status, whole.sha256());
                    if (!check.ok()) {
                        return new Result<>(null, new Failure(Kind.UNSIGNED, status, false, check.problem(), null));
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
                            return new Result<>(null, new Failure(Kind.UNSIGNED, status, false, check.problem(),
                                    null));
                        }
                        throw e;
                    }
                    AnswerVerifier.Check check = verify(hashed, status, hashed.sha256());
                    if (!check.ok()) {
                        return new Result<>(null, new Failure(Kind.UNSIGNED, status, false, check.problem(), null));
                    }
                }
            } else {
                value = handler.handle(response);
            }
            success = true;
            listener.onEvent(new ClientEvent.AttemptSucceeded(path, route, refresh, status));
            return new Result<>(value, null);
        } catch (CorruptAnswerException e) {
            return new Result<>(null, new Failure(Kind.CORRUPT, 200, false, e.getMessage(), e));
        } catch (AttemptDeadline.AttemptTimeoutException e) {
            return new Result<>(null, new Failure(Kind.TIMEOUT, 200, false, e.getMessage(), e));
        } catch (SocketTimeoutException e) {
            return new Result<>(null, new Failure(Kind.TIMEOUT, 200, false, "read timeout in the answer", e));
        } catch (java.net.SocketException e) {
            // Reset or broken connection: the transfer broke (not a bad copy in a cache).
            return new Result<>(null, new Failure(Kind.UNAVAILABLE, 200, false, "transfer broke: " + e, e));
        } catch (IOException e) {
            // The JDK reports a connection closed before Content-Length as an IOException ("Premature EOF"):
            // a truncated answer.
            return new Result<>(null, new Failure(Kind.CORRUPT, 200, false, "truncated answer: " + e, e));
        } catch (OutpostException e) {
            return new Result<>(null, new Failure(e.kind(), 200, false, e.getMessage(), e));
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
            if (hop >= Failover.MAX_REDIRECTS) {
                return new Redirect(null, new Failure(Kind.UNAVAILABLE, status, false, "more than " + Failover.MAX_REDIRECTS
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
        long maxAge = Failover.maxAge(r.header("Cache-Control"));
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
