package io.outpost.server.web;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.outpost.server.cache.Answer;
import io.outpost.server.cache.AnswerCache;
import io.outpost.server.cache.Catalog;
import io.outpost.server.signing.AnswerSigner;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.apache.tomcat.util.http.FastHttpDateFormat;

/**
 * Native answers served straight from memory: a canonical URL whose answer is cached at its folder's current
 * generation is written (or answered 304) without parsing anything. Used by {@link MemoryHitValve} before the
 * servlet filter chain, and by {@link NativeApiServlet} once it knows the answer.
 */
public final class MemoryHits {
    private final Catalog catalog;
    private final AnswerCache cache;
    private final AnswerSigner signer;
    private final Counter notModified;
    private final Timer hitTimer;

    /**
     * A current answer and how to send it.
     *
     * @param cacheControl the Cache-Control value for this request (stale answers allowed or not)
     * @param notModified  the request's validators match: a 304 without body
     */
    public record Hit(Answer answer, String cacheControl, boolean notModified) {
    }

    public MemoryHits(Catalog catalog, AnswerCache cache, AnswerSigner signer, MeterRegistry registry) {
        this.catalog = catalog;
        this.cache = cache;
        this.signer = signer;
        this.notModified = Counter.builder("outpost.responses.not_modified").register(registry);
        this.hitTimer = Timer.builder("outpost.requests").tag("path", "memory").description("native API requests")
                .register(registry);
    }

    /**
     * The hit for a GET of {@code path} (no query string) if its answer is current in memory, else null;
     * {@code header} reads the request's headers by name.
     */
    public Hit find(String path, UnaryOperator<String> header) {
        Answer a = cache.peek(path);
        if (a == null || !a.generation().equals(currentGeneration(a.headers().folder()))) {
            return null;
        }
        Answer.Headers h = a.headers();
        boolean matches = notModified(header.apply("If-None-Match"), header.apply("If-Modified-Since"), h.etag(),
                h.lastModifiedMillis());
        if (matches) {
            notModifiedAnswered();
        }
        return new Hit(a, allowsStale(header.apply("Cache-Control")) ? h.cacheControlAllowingStale() : h.cacheControl(),
                matches);
    }

    /** Counts a hit that began at {@code startNanos} in the memory path's request timer. */
    public void served(long startNanos) {
        hitTimer.record(System.nanoTime() - startNanos, TimeUnit.NANOSECONDS);
    }

    /** Serves a GET of {@code uri} from memory if its answer is current there; false leaves the response untouched. */
    public boolean tryServe(String uri, HttpServletRequest req, HttpServletResponse resp) throws IOException {
        long start = System.nanoTime();
        if (req.getQueryString() != null) {
            return false;
        }
        Hit hit = find(uri, req::getHeader);
        if (hit == null) {
            return false;
        }
        write(hit, uri, resp);
        served(start);
        return true;
    }

    /** The generation an answer about {@code folder} ("" = the whole catalog) must have to be current. */
    private String currentGeneration(String folder) {
        if (folder.isEmpty()) {
            return catalog.catalogGeneration();
        }
        Catalog.Entry e = catalog.find(folder);
        return e == null ? null : e.generation();
    }

    /** Writes an answer, or a 304 when the request's validators match it. */
    void serve(Answer a, HttpServletRequest req, HttpServletResponse resp) throws IOException {
        Answer.Headers h = a.headers();
        boolean matches = notModified(req, h.etag(), h.lastModifiedMillis());
        if (matches) {
            notModifiedAnswered();
        }
        write(new Hit(a, allowsStale(req) ? h.cacheControlAllowingStale() : h.cacheControl(), matches),
                req.getRequestURI(), resp);
    }

    private void write(Hit hit, String uri, HttpServletResponse resp) throws IOException {
        Answer.Headers h = hit.answer().headers();
        resp.setHeader("Cache-Control", hit.cacheControl());
        resp.setHeader("ETag", h.etag());
        resp.setHeader("Last-Modified", h.lastModified());
        String signature = signature(signer, hit.answer(), uri, hit.cacheControl());
        if (hit.notModified()) {
            // a cache updates its stored headers from a 304: the stored answer's signature gets a new expiry
            resp.setStatus(HttpServletResponse.SC_NOT_MODIFIED);
            if (signature != null) {
                resp.setHeader(AnswerSigner.HEADER, signature);
            }
            return;
        }
        writeBody(resp, hit.answer(), signature);
    }

    /**
     * A 301 from {@code target} to its canonical spelling {@code location}, kept by caches for a day and signed
     * (a client under security=sig follows only a signed redirect).
     */
    void redirect(String target, String location, HttpServletResponse resp) {
        String cacheControl = "public, max-age=86400";
        resp.setStatus(HttpServletResponse.SC_MOVED_PERMANENTLY);
        resp.setHeader("Location", location);
        resp.setHeader("Cache-Control", cacheControl);
        if (signer.enabled()) {
            resp.setHeader(AnswerSigner.HEADER, signer.redirectHeader(target, location,
                    signer.expiresFor(cacheControl)));
        }
        resp.setContentLength(0);
    }

    /** True when answers are signed: a 304 then needs the answer's body to sign, not only its validators. */
    public boolean signs() {
        return signer.enabled();
    }

    /**
     * The signature header of {@code a} served at {@code uri} (no query string: native URLs have none) with
     * {@code cacheControl}, or null when answers are not signed; computed on the answer's first write to that URI,
     * then kept with the answer until too little of its life is left for the max-age about to be sent.
     */
    static String signature(AnswerSigner signer, Answer a, String uri, String cacheControl) {
        if (!signer.enabled()) {
            return null;
        }
        return a.headers().signature().header(uri, signer.nowSeconds(), AnswerSigner.maxAge(cacheControl),
                signer.graceSeconds(),
                expires -> signer.answerHeader(uri, a.headers().etag(), expires, a.body()));
    }

    /**
     * A 200 with the answer's content headers, its signature header (if not null) and body (the caching headers are
     * the caller's).
     */
    static void writeBody(HttpServletResponse resp, Answer a, String signature) throws IOException {
        Answer.Headers h = a.headers();
        resp.setStatus(200);
        resp.setContentType(a.contentType());
        if (signature != null) {
            resp.setHeader(AnswerSigner.HEADER, signature);
        }
        resp.setHeader("X-Outpost-Rows", h.rows());
        if (h.validSince() != null) {
            resp.setHeader("X-Outpost-Valid-Since", h.validSince());
            resp.setHeader("X-Outpost-Valid-Until", h.validUntil());
        }
        resp.setContentLength(a.body().length);
        resp.getOutputStream().write(a.body());
    }

    void notModifiedAnswered() {
        notModified.increment();
    }

    static boolean notModified(HttpServletRequest req, String etag, long modifiedMillis) {
        return notModified(req.getHeader("If-None-Match"), req.getHeader("If-Modified-Since"), etag, modifiedMillis);
    }

    /** If-None-Match wins over If-Modified-Since (RFC 9110 13.2.2); an unreadable date matches nothing. */
    static boolean notModified(String ifNoneMatch, String ifModifiedSince, String etag, long modifiedMillis) {
        if (ifNoneMatch != null) {
            for (String t : ifNoneMatch.split(",")) {
                String v = t.trim();
                if (v.equals(etag) || v.equals("W/" + etag) || v.equals("*")) {
                    return true;
                }
            }
            return false;
        }
        if (ifModifiedSince == null || modifiedMillis <= 0) {
            return false;
        }
        long ims = FastHttpDateFormat.parseDate(ifModifiedSince);
        return ims >= 0 && modifiedMillis / 1000 * 1000 <= ims;
    }

    static boolean allowsStale(HttpServletRequest req) {
        return allowsStale(req.getHeader("Cache-Control"));
    }

    private static boolean allowsStale(String cacheControl) {
        return cacheControl != null && cacheControl.toLowerCase(Locale.ROOT).contains("max-stale");
    }
}
