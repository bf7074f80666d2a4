package io.outpost.server.web;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.outpost.server.cache.Answer;
import io.outpost.server.cache.AnswerCache;
import io.outpost.server.cache.CachePolicy;
import io.outpost.server.cache.Catalog;
import io.outpost.server.config.OutpostProperties;
import io.outpost.server.query.BadQueryException;
import io.outpost.server.query.Op;
import io.outpost.server.query.Query;
import io.outpost.server.query.QueryParser;
import io.outpost.server.query.QueryService;
import io.outpost.store.StoreException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.zip.CRC32;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The native API (docs/api.md) as one plain servlet: no MVC dispatch on the hot path.
 *
 * <p>Fast path: a canonical URL whose answer is in memory at the folder's current generation is served (or
 * answered 304) without parsing anything. Otherwise: parse and canonicalise the path (redirect other
 * spellings); find the folder in the catalog; answer conditional requests with 304 from memory; take the answer
 * from the cache or compute it once (single flight).
 */
public class NativeApiServlet extends HttpServlet {
    private static final Logger log = LoggerFactory.getLogger(NativeApiServlet.class);
    private static final DateTimeFormatter HTTP_DATE = DateTimeFormatter.RFC_1123_DATE_TIME;

    private final Catalog catalog;
    private final AnswerCache cache;
    private final QueryService service;
    private final CachePolicy policy;
    private final long maxWaitMillis;
    private final MemoryHits hits;
    private final Counter redirects;
    private final Counter errors;
    private final Timer missTimer;

    public NativeApiServlet(Catalog catalog, AnswerCache cache, MemoryHits hits, QueryService service,
                            CachePolicy policy, OutpostProperties props, MeterRegistry registry) {
        this.catalog = catalog;
        this.cache = cache;
        this.service = service;
        this.policy = policy;
        this.maxWaitMillis = props.database().connectionTimeout().plus(props.database().statementTimeout()).toMillis();
        this.hits = hits;
        this.redirects = Counter.builder("outpost.responses.redirects").register(registry);
        this.errors = Counter.builder("outpost.responses.errors").register(registry);
        this.missTimer = Timer.builder("outpost.requests").tag("path", "full").description("native API requests")
                .register(registry);
    }

    private static final java.util.regex.Pattern ENCODED_SLASH = java.util.regex.Pattern.compile("%2[fF]");

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        String raw = req.getRequestURI();
        if (hits.tryServe(raw, req, resp)) {
            return;
        }
        long start = System.nanoTime();
        try {
            if (req.getQueryString() != null) {
                throw new BadQueryException("native queries carry their whole meaning in the path; drop the '?"
                        + abbreviate(req.getQueryString()) + "'");
            }
            // a folder path written as one percent-encoded segment (DEMO%2FCalo%2FPedestals, as generated clients
            // write path parameters) means the path: redirected to the canonical URL like any other spelling
            Query q = QueryParser.parse(ENCODED_SLASH.matcher(raw).replaceAll("/"));
            String canonical = q.canonicalPath();
            if (!canonical.equals(raw)) {
                redirects.increment();
                hits.redirect(raw, canonical, resp);
                return;
            }
            answer(q, canonical, req, resp);
        } catch (BadQueryException e) {
            error(resp, e.status(), e.getMessage(), raw);
        } catch (StoreException e) {
            int status = StoreStatus.of(e);
            String detail = InternalErrors.clientText(e, raw); // logs what it leaves out
            if (status == 503 && detail.equals(e.getMessage())) {
                log.warn("503 for {}: {}", raw, e.getMessage());
            }
            error(resp, status, detail, raw);
        } catch (AnswerCache.WaitTimeout e) {
            error(resp, 503, e.getMessage(), raw);
        } finally {
            missTimer.record(System.nanoTime() - start, java.util.concurrent.TimeUnit.NANOSECONDS);
        }
    }

    private void answer(Query q, String canonical, HttpServletRequest req, HttpServletResponse resp) throws IOException {
        boolean catalogWide = q.op() == Op.NODES || q.op() == Op.TAGS || q.op() == Op.TAG;
        Catalog.Entry entry = null;
        if (q.op() != Op.NODES) {
            entry = catalog.find(q.path());
            if (entry == null) {
                catalog.refreshIfOlderThanASecond();
                entry = catalog.find(q.path());
            }
            if (entry == null) {
                throw new StoreException(StoreException.Kind.FOLDER_NOT_FOUND, "no folder or folderset '" + q.path() + "'");
            }
        }
        String generation = catalogWide ? catalog.catalogGeneration() : entry.generation();
        Instant modified = catalogWide ? catalog.catalogModified() : entry.lastModified();
        String etag = etag(canonical, generation);
        // with signed answers a 304 carries a fresh signature of the body: it is answered once the answer is at hand
        if (!hits.signs() && MemoryHits.notModified(req, etag, modified.toEpochMilli())) {
            hits.notModifiedAnswered();
            resp.setStatus(HttpServletResponse.SC_NOT_MODIFIED);
            resp.setHeader("ETag", etag);
            resp.setHeader("Last-Modified", httpDate(modified));
            resp.setHeader("Cache-Control", policy.cacheControl(q, null, MemoryHits.allowsStale(req)));
            return;
        }
        Catalog.Entry node = entry;
        String folder = catalogWide ? "" : q.path();
        java.util.function.Supplier<Answer> loader = () -> withHeaders(q, folder,
                service.load(q, node == null ? null : node.node(), generation), etag, modified);
        // A request's "no-store" (RFC 9111 5.2.1.5) keeps its answer out of the memory cache: a one-off read must
        // not evict the answers other jobs share.
        Answer a = forbidsStoring(req) ? cache.loadWithoutStoring(loader) : cache.get(canonical, generation, loader, maxWaitMillis);
        hits.serve(a, req, resp);
    }

    private Answer withHeaders(Query q, String folder, Answer a, String etag, Instant modified) {
        boolean at = q.op() == Op.AT;
        return a.withHeaders(new Answer.Headers(folder, etag, modified.toEpochMilli(), httpDate(modified),
                policy.cacheControl(q, a, false), policy.cacheControl(q, a, true), Long.toString(a.rows()),
                at ? Long.toString(a.validSince()) : null, at ? Long.toString(a.validUntil()) : null));
    }

    private static boolean forbidsStoring(HttpServletRequest req) {
        String cc = req.getHeader("Cache-Control");
        return cc != null && cc.toLowerCase(Locale.ROOT).contains("no-store");
    }

    static String etag(String canonical, String generation) {
        CRC32 a = new CRC32();
        a.update(canonical.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        return "\"" + Long.toHexString(a.getValue()) + "-" + Integer.toHexString(generation.hashCode()) + "\"";
    }

    static String httpDate(Instant t) {
        return HTTP_DATE.format(ZonedDateTime.ofInstant(t, ZoneOffset.UTC));
    }

    private void error(HttpServletResponse resp, int status, String detail, String instance) throws IOException {
        errors.increment();
        String title = switch (status) {
            case 400 -> "Bad Request";
            case 404 -> "Not Found";
            case 409 -> "Conflict";
            case 414 -> "URI Too Long";
            case 503 -> "Service Unavailable";
            default -> "Error";
        };
        Problems.write(resp, status, title, detail, instance, policy.errorCacheControl(status));
    }

    private static String abbreviate(String s) {
        return s.length() > 64 ? s.substring(0, 64) + "…" : s;
    }
}
