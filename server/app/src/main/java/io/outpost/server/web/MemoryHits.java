package io.outpost.server.web;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.outpost.server.cache.Answer;
import io.outpost.server.cache.AnswerCache;
import io.outpost.server.cache.Catalog;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Native answers served straight from memory: a canonical URL whose answer is cached at its folder's current
 * generation is written (or answered 304) without parsing anything. Used by {@link MemoryHitValve} before the
 * servlet filter chain and by {@link NativeApiServlet} once it knows the answer.
 */
public final class MemoryHits {
    private final Catalog catalog;
    private final AnswerCache cache;
    private final Counter notModified;
    private final Timer hitTimer;

    public MemoryHits(Catalog catalog, AnswerCache cache, MeterRegistry registry) {
        this.catalog = catalog;
        this.cache = cache;
        this.notModified = Counter.builder("outpost.responses.not_modified").register(registry);
        this.hitTimer = Timer.builder("outpost.requests").tag("path", "memory").description("native API requests")
                .register(registry);
    }

    /** Serves a GET of {@code uri} from memory if its answer is current there; false leaves the response untouched. */
    public boolean tryServe(String uri, HttpServletRequest req, HttpServletResponse resp) throws IOException {
        long start = System.nanoTime();
        if (req.getQueryString() != null) {
            return false;
        }
        Answer a = cache.peek(uri);
        if (a == null || !a.generation().equals(currentGeneration(a.headers().folder()))) {
            return false;
        }
        serve(a, req, resp);
        hitTimer.record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
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
        resp.setHeader("Cache-Control", allowsStale(req) ? h.cacheControlAllowingStale() : h.cacheControl());
        resp.setHeader("ETag", h.etag());
        resp.setHeader("Last-Modified", h.lastModified());
        if (notModified(req, h.etag(), h.lastModifiedMillis())) {
            notModifiedAnswered();
            resp.setStatus(HttpServletResponse.SC_NOT_MODIFIED);
            return;
        }
        writeBody(resp, a);
    }

    /** A 200 with the answer's content headers and body (the caching headers are the caller's). */
    static void writeBody(HttpServletResponse resp, Answer a) throws IOException {
        Answer.Headers h = a.headers();
        resp.setStatus(200);
        resp.setContentType(a.contentType());
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
        String inm = req.getHeader("If-None-Match");
        if (inm != null) {
            for (String t : inm.split(",")) {
                String v = t.trim();
                if (v.equals(etag) || v.equals("W/" + etag) || v.equals("*")) {
                    return true;
                }
            }
            return false;
        }
        if (req.getHeader("If-Modified-Since") == null || modifiedMillis <= 0) {
            return false;
        }
        try {
            long ims = req.getDateHeader("If-Modified-Since");
            return ims >= 0 && modifiedMillis / 1000 * 1000 <= ims;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    static boolean allowsStale(HttpServletRequest req) {
        String cc = req.getHeader("Cache-Control");
        return cc != null && cc.toLowerCase(Locale.ROOT).contains("max-stale");
    }
}
