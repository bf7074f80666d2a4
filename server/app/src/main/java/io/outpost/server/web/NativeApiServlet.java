package io.outpost.server.web;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
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
import java.util.zip.CRC32;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The native API (docs/api.md) as one plain servlet: no MVC dispatch on the hot path. Order of work per request:
 * parse and canonicalise the path (redirect other spellings); find the folder in the catalog; answer
 * conditional requests with 304 from memory; otherwise take the answer from the cache or compute it once.
 */
public class NativeApiServlet extends HttpServlet {
    private static final Logger log = LoggerFactory.getLogger(NativeApiServlet.class);
    private static final DateTimeFormatter HTTP_DATE = DateTimeFormatter.RFC_1123_DATE_TIME;

    private final Catalog catalog;
    private final AnswerCache cache;
    private final QueryService service;
    private final CachePolicy policy;
    private final long maxWaitMillis;
    private final Counter notModified;
    private final Counter redirects;
    private final Counter errors;

    public NativeApiServlet(Catalog catalog, AnswerCache cache, QueryService service, CachePolicy policy,
                            OutpostProperties props, MeterRegistry registry) {
        this.catalog = catalog;
        this.cache = cache;
        this.service = service;
        this.policy = policy;
        this.maxWaitMillis = props.database().connectionTimeout().plus(props.database().statementTimeout()).toMillis();
        this.notModified = Counter.builder("outpost.responses.not_modified").register(registry);
        this.redirects = Counter.builder("outpost.responses.redirects").register(registry);
        this.errors = Counter.builder("outpost.responses.errors").register(registry);
    }

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        String raw = req.getRequestURI();
        try {
            if (req.getQueryString() != null) {
                throw new BadQueryException("native queries carry their whole meaning in the path; drop the '?"
                        + abbreviate(req.getQueryString()) + "'");
            }
            Query q = QueryParser.parse(raw);
            String canonical = q.canonicalPath();
            if (!canonical.equals(raw)) {
                redirects.increment();
                resp.setStatus(HttpServletResponse.SC_MOVED_PERMANENTLY);
                resp.setHeader("Location", canonical);
                resp.setHeader("Cache-Control", "public, max-age=86400");
                resp.setContentLength(0);
                return;
            }
            answer(q, canonical, req, resp);
        } catch (BadQueryException e) {
            error(resp, e.status(), e.getMessage(), raw);
        } catch (StoreException e) {
            int status = switch (e.kind().category()) {
                case NOT_FOUND -> 404;
                case BAD_INPUT -> 400;
                case CONFLICT -> 409;
                case UNAVAILABLE -> 503;
            };
            if (status == 503) {
                log.warn("503 for {}: {}", raw, e.getMessage());
            }
            error(resp, status, e.getMessage(), raw);
        } catch (AnswerCache.WaitTimeout e) {
            error(resp, 503, e.getMessage(), raw);
        }
    }

    private void answer(Query q, String canonical, HttpServletRequest req, HttpServletResponse resp) throws IOException {
        Catalog.Entry entry = null;
        String generation;
        Instant modified;
        if (q.op() == Op.NODES || q.op() == Op.TAGS || q.op() == Op.TAG) {
            generation = catalog.catalogGeneration();
            modified = catalog.catalogModified();
        } else {
            generation = null;
            modified = null;
        }
        if (q.op() != Op.NODES) {
            entry = catalog.find(q.path());
            if (entry == null) {
                catalog.refreshIfOlderThanASecond();
                entry = catalog.find(q.path());
            }
            if (entry == null) {
                throw new StoreException(StoreException.Kind.FOLDER_NOT_FOUND, "no folder or folderset '" + q.path() + "'");
            }
            if (generation == null) {
                generation = entry.generation();
                modified = entry.lastModified();
            }
        }
        String etag = etag(canonical, generation);
        boolean allowsStale = allowsStale(req);
        if (notModified(req, etag, modified)) {
            notModified.increment();
            resp.setStatus(HttpServletResponse.SC_NOT_MODIFIED);
            resp.setHeader("ETag", etag);
            resp.setHeader("Last-Modified", httpDate(modified));
            resp.setHeader("Cache-Control", policy.cacheControl(q, cache.peek(canonical), allowsStale));
            return;
        }
        Catalog.Entry node = entry;
        String gen = generation;
        Answer a = cache.get(canonical, generation, () -> service.load(q, node == null ? null : node.node(), gen),
                maxWaitMillis);
        resp.setStatus(200);
        resp.setContentType(a.contentType());
        resp.setHeader("Cache-Control", policy.cacheControl(q, a, allowsStale));
        resp.setHeader("ETag", etag);
        resp.setHeader("Last-Modified", httpDate(modified));
        resp.setHeader("X-Outpost-Rows", Long.toString(a.rows()));
        if (q.op() == Op.AT) {
            resp.setHeader("X-Outpost-Valid-Since", Long.toString(a.validSince()));
            resp.setHeader("X-Outpost-Valid-Until", Long.toString(a.validUntil()));
        }
        resp.setContentLength(a.body().length);
        resp.getOutputStream().write(a.body());
    }

    private static boolean notModified(HttpServletRequest req, String etag, Instant modified) {
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
        long ims = -1;
        try {
            ims = req.getDateHeader("If-Modified-Since");
        } catch (IllegalArgumentException e) {
            return false;
        }
        return ims >= 0 && modified.getEpochSecond() * 1000 <= ims && !modified.equals(Instant.EPOCH);
    }

    private static boolean allowsStale(HttpServletRequest req) {
        String cc = req.getHeader("Cache-Control");
        return cc != null && cc.toLowerCase(java.util.Locale.ROOT).contains("max-stale");
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
