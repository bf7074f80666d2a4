package io.outpost.frontier;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.sql.Types;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Frontier servlet of one context, compatible with upstream servlet 3.42 and frontier_client 2.x: same URL
 * forms, same XML envelope and record stream, same error and caching behaviour (see docs/frontier.md).
 * Register it at {@link FrontierContext#servletMapping()}.
 */
public class FrontierServlet extends HttpServlet {
    public static final String FRONTIER_VERSION = "3.42";
    public static final String XML_VERSION = "1.0";
    private static final Logger LOG = LoggerFactory.getLogger(FrontierServlet.class);
    private static final String EPOCH = "Thu, 01 Jan 1970 00:00:00 GMT";
    private static final ScheduledExecutorService TIMER = Executors.newScheduledThreadPool(1, r -> {
        Thread t = new Thread(r, "frontier-keepalive");
        t.setDaemon(true);
        return t;
    });
    private static final AtomicLong IDS = new AtomicLong();
    /** Deflates payload chunks while the request thread reads the next rows (BlobEncoder). */
    private static final java.util.concurrent.ExecutorService DEFLATE = Executors.newFixedThreadPool(
            Runtime.getRuntime().availableProcessors(), r -> {
                Thread t = new Thread(r, "frontier-deflate");
                t.setDaemon(true);
                return t;
            });

    private final transient FrontierContext context;
    private final transient FrontierConfig config;
    private final transient SqlGuard guard;
    private final transient CheckedStatements checkedStatements;
    private final transient TableTimes times;
    private final transient FrontierAnswers answers;
    private final transient Semaphore threads;
    private final transient QueryCostGuard cost;
    private transient volatile SnapshotQueryCoverage snapshotCoverage;
    private final boolean postgres;
    private final boolean oracle;

    public FrontierServlet(FrontierContext context) {
        this(context, FrontierAnswers.DEFAULT_MAX_BYTES, QueryCostLimits.defaults());
    }

    /** @param answerCacheBytes bytes of encoded answers kept (0: none) */
    public FrontierServlet(FrontierContext context, long answerCacheBytes) {
        this(context, answerCacheBytes, QueryCostLimits.defaults());
    }

    public FrontierServlet(FrontierContext context, QueryCostLimits costLimits) {
        this(context, FrontierAnswers.DEFAULT_MAX_BYTES, costLimits);
    }

    /**
     * @param answerCacheBytes bytes of encoded answers kept (0: none)
     * @param costLimits       what one request may cost the database (see {@link QueryCostGuard})
     */
    public FrontierServlet(FrontierContext context, long answerCacheBytes, QueryCostLimits costLimits) {
        this.context = context;
        this.answers = new FrontierAnswers(context.database().prefix(), answerCacheBytes);
        this.config = context.config();
        String dialect = context.database().dialect().name();
        SqlGuard.Target target = SqlGuard.targetFor(dialect);
        this.postgres = target == SqlGuard.Target.POSTGRESQL;
        this.oracle = target == SqlGuard.Target.ORACLE;
        this.guard = new SqlGuard(context.database().prefix(), config.schemaName(), target, context.tables());
        this.times = new TableTimes(context.database().prefix(), config.validateLastModifiedSeconds());
        this.threads = new Semaphore(config.maxThreads(), true);
        this.cost = new QueryCostGuard(costLimits, target);
        this.snapshotCoverage = SnapshotQueryCoverage.load(context.database());
        this.checkedStatements = new CheckedStatements(statement -> {
            SqlGuard.Checked checked = guard.check(statement);
            cost.checkShape(checked.sql());
            return checked;
        });
    }

    public FrontierContext context() {
        return context;
    }

    /**
     * Re-reads the coverage of a context serving an offline snapshot, after a sync changed what it holds (the
     * service calls this when its catalog poll sees a change); nothing to do on an ordinary database.
     */
    public void reloadSnapshotCoverage() {
        if (snapshotCoverage.isSnapshot()) {
            SnapshotQueryCoverage now = SnapshotQueryCoverage.load(context.database());
            if (now.isSnapshot()) {
                snapshotCoverage = now;
            }
        }
    }

    /** The context's answer cache (its counters show hits, loads and joins). */
    public FrontierAnswers answers() {
        return answers;
    }

    /** One payload of the request, decoded and checked before anything is written. */
    private static final class Payload {
        final FrontierCommand cmd;
        String sql;
        List<String> binds = List.of();
        Set<String> tables = Set.of();
        Set<String> sources;
        boolean dictionary;
        String error;

        Payload(FrontierCommand cmd) {
            this.cmd = cmd;
        }
    }

    private record Parsed(List<Payload> payloads, long maxAge, boolean forever) {
    }

    @Override
    protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        long id = IDS.incrementAndGet();
        long start = System.nanoTime();
        ResponseOutput out = new ResponseOutput(resp, config.responseBufferBytes());
        resp.setContentType("text/xml");
        resp.setCharacterEncoding("US-ASCII");
        String globalError = null;
        boolean body = true;
        boolean holdsThread = false;
        String client = null;
        Connection[] conn = new Connection[1];
        String outcome = "ok";
        try {
            Parsed parsed;
            try {
                parsed = parse(req);
            } catch (FrontierException e) {
                LOG.info("{} id={} request error: {}", context.name(), id, e.getMessage());
                setAge(req, resp, FrontierConfig.ERROR_DEFAULT_MAX_AGE);
                resp.setHeader("Last-Modified", EPOCH);
                begin(out);
                globalError = "Error: " + e.getMessage();
                return;
            }
            setAge(req, resp, parsed.maxAge);
            long lastModified = cachedLastModified(parsed.payloads);
            long ims = ifModifiedSince(req);
            if (ims > 0 && ims == lastModified) {
                resp.setStatus(HttpServletResponse.SC_NOT_MODIFIED);
                body = false;
                outcome = "not_modified";
                return;
            }
            if (!threads.tryAcquire()) {
                resp.setStatus(HttpServletResponse.SC_SERVICE_UNAVAILABLE);
                setAge(req, resp, config.errorMaxAge());
                outcome = "busy";
                LOG.warn("{} id={} rejecting because servlet too busy", context.name(), id);
                return;
            }
            holdsThread = true;
            String key = ClientConcurrencyLimit.clientKey(req);
            if (!cost.tryAcquireClient(key)) {
                // this client's own limit: never cached, as other clients asking the same URL are not refused
                resp.setStatus(HttpServletResponse.SC_SERVICE_UNAVAILABLE);
                resp.setHeader("Cache-Control", "no-store");
                resp.setHeader("Retry-After", "1");
                outcome = "client_busy";
                LOG.warn("{} id={} rejecting: client {} has {} requests running (MaxRequestsPerClient)",
                        context.name(), id, key, cost.limits().maxRequestsPerClient());
                return;
            }
            client = key;
            if (lastModified > 0) {
                resp.setHeader("Last-Modified", httpDate(lastModified));
            }
            begin(out);
            out.print(" <transaction payloads=\"" + parsed.payloads.size() + "\">\n");
            try {
                for (Payload p : parsed.payloads) {
                    Result r = runPayload(req, resp, out, parsed, p, conn, lastModified, ims);
                    if (r.unavailable != null) {
                        out.discard();
                        DatabaseUnavailable.refuse(resp);
                        out.print("</frontier>\n");
                        out.finish();
                        body = false;
                        outcome = "db_unavailable";
                        LOG.warn("{} id={} 503, database unavailable: {}", context.name(), id, r.unavailable);
                        return;
                    }
                    if (r.notModified) {
                        out.discard();
                        resp.setStatus(HttpServletResponse.SC_NOT_MODIFIED);
                        body = false;
                        outcome = "not_modified";
                        return;
                    }
                    if (r.error) {
                        outcome = "payload_error";
                        globalError = r.globalError;
                        break;
                    }
                }
            } finally {
                if (body) {
                    out.print(" </transaction>\n");
                }
            }
        } catch (IOException e) {
            // the client went away: nothing more can be sent
            body = false;
            outcome = "client_abort";
            LOG.info("{} id={} client disconnected: {}", context.name(), id, e.toString());
        } catch (RuntimeException | Error e) {
            LOG.error("{} id={} internal error", context.name(), id, e);
            globalError = "Internal Error: " + describe(e);
        } finally {
            try {
                if (body) {
                    if (globalError != null) {
                        outcome = "global_error";
                        out.print("\n  <global_error msg=\"" + xml(config.serverName() + " " + globalError) + "\"/>\n");
                    }
                    out.print("</frontier>\n");
                    out.finish();
                }
            } catch (IOException e) {
                LOG.info("{} id={} client disconnected at end: {}", context.name(), id, e.toString());
            } finally {
                release(conn);
                if (client != null) {
                    cost.releaseClient(client);
                }
                if (holdsThread) {
                    threads.release();
                }
                context.metrics().request(outcome);
                LOG.debug("{} id={} stop outcome={} committed={} msecs={}", context.name(), id, outcome,
                        out.isCommitted(), (System.nanoTime() - start) / 1_000_000);
            }
        }
    }

    // ------------------------------------------------------------------ request parsing

    private Parsed parse(HttpServletRequest req) throws FrontierException {
        String query = req.getQueryString();
        if (query == null) {
            query = req.getPathInfo();
        }
        if (query == null) {
            throw new FrontierException("no query");
        }
        if (req.getHeader("X-Frontier-Id") == null) {
            throw new FrontierException("X-frontier-id header missing");
        }
        if (req.getMethod().equals("POST")) {
            throw new FrontierException("POST is not implemented yet!");
        }
        if (!req.getMethod().equals("GET")) {
            throw new FrontierException("Unsupported method [" + req.getMethod() + "]");
        }
        LOG.debug("{} query {} raddr {} frontier-id: {} via: {} x-forwarded-for: {}", context.name(), query,
                req.getRemoteAddr(), req.getHeader("X-Frontier-Id"), req.getHeader("Via"),
                req.getHeader("X-Forwarded-For"));
        List<FrontierCommand> cmds = FrontierCommand.parse(query);
        int cacheLength = 1; // 0 short, 1 long, 2 forever
        boolean forever = false;
        List<Payload> payloads = new ArrayList<>();
        for (FrontierCommand c : cmds) {
            if (c.domain().equals("meta")) {
                throw new FrontierException("META methods are not supported by this object");
            }
            if (c.domain().equals("write")) {
                throw new FrontierException("Not implemented");
            }
            if (!"frontier_request".equals(c.objectName()) || !"1".equals(c.objectVersion())) {
                throw new FrontierException("Unsupported command: " + c.objectName());
            }
            String ttl = c.param("ttl");
            if ("short".equals(ttl)) {
                cacheLength = 0;
            } else if ("forever".equals(ttl)) {
                cacheLength = 2;
            }
            Payload p = new Payload(c);
            prepare(p);
            payloads.add(p);
        }
        long maxAge = FrontierConfig.PAYLOAD_EXPIRE_SECONDS;
        Long configured = switch (cacheLength) {
            case 0 -> config.shortSeconds();
            case 1 -> config.longSeconds();
            default -> config.foreverSeconds();
        };
        if (configured != null) {
            maxAge = configured;
        }
        Integer hour = cacheLength == 0 ? config.shortHourOfDay() : cacheLength == 1 ? config.longHourOfDay() : null;
        if (hour != null) {
            maxAge = Math.min(maxAge, secondsUntilHour(ZonedDateTime.now(config.zone()), hour));
        }
        return new Parsed(payloads, maxAge, forever);
    }

    /** Seconds from {@code now} to the next start of local hour {@code hour} (tomorrow if already past). */
    static long secondsUntilHour(ZonedDateTime now, int hour) {
        ZonedDateTime next = now.truncatedTo(ChronoUnit.HOURS).withHour(hour);
        if (hour <= now.getHour()) {
            next = next.plusDays(1);
        }
        return Math.max(0, ChronoUnit.SECONDS.between(now, next));
    }

    /** Decodes p1, applies the bind-variable rule and validates/translates; failures become payload errors. */
    private void prepare(Payload p) {
        try {
            String p1 = p.cmd.param("p1");
            if (p1 == null) {
                throw new FrontierException("Missing p1 parameter");
            }
            String sql = P1Codec.decode(p1);
            String statement = sql;
            List<String> binds = List.of();
            if (sql.indexOf(':') >= 0 && sql.indexOf('?') >= 0) {
                String[] tokens = sql.split(":");
                statement = tokens[0];
                binds = List.of(tokens).subList(1, tokens.length);
            }
            SqlGuard.Checked checked = checkedStatements.check(statement);
            snapshotCoverage.check(checked, binds); // an offline snapshot answers only what it holds exactly
            p.sql = checked.sql();
            p.binds = binds;
            p.tables = checked.tables();
            p.dictionary = checked.dictionary();
            p.sources = p.dictionary ? null : times.sources(checked.tables());
        } catch (FrontierException e) {
            p.error = e.getMessage();
        }
    }

    private long cachedLastModified(List<Payload> payloads) {
        long max = 0;
        for (Payload p : payloads) {
            if (p.error != null || p.sources == null) {
                return -1;
            }
            long t = times.cached(p.sources);
            if (t < 0) {
                return -1;
            }
            max = Math.max(max, t);
        }
        return max;
    }

    private static long ifModifiedSince(HttpServletRequest req) {
        try {
            return req.getDateHeader("If-Modified-Since");
        } catch (IllegalArgumentException e) {
            return -1;
        }
    }

    // ------------------------------------------------------------------ payloads

    private static final class Result {
        boolean error;
        boolean notModified;
        String globalError;
        /** Why the database could not be reached, if the whole request is to be refused with 503. */
        String unavailable;
    }

    /** An outage met before anything was sent becomes a 503 of the whole request; later, a payload error. */
    private static boolean refused(Throwable e, Connection c, ResponseOutput out, Result r) {
        if ((DatabaseUnavailable.isOutage(e) || DatabaseUnavailable.lostConnection(e, c)) && !out.isCommitted()) {
            r.unavailable = oneLine(e.getMessage());
            return true;
        }
        return false;
    }

    private Result runPayload(HttpServletRequest req, HttpServletResponse resp, ResponseOutput out, Parsed parsed,
                              Payload p, Connection[] conn, long lastModified, long ims) throws IOException {
        Result r = new Result();
        out.print("  <payload type=\"" + xml(p.cmd.objectName()) + "\" version=\"" + xml(p.cmd.objectVersion())
                + "\" encoding=\"" + xml(p.cmd.encoding()) + "\">\n");
        out.print("   <data>");
        int level;
        boolean freshTransaction = false; // nothing has run on the connection yet in this transaction
        try {
            if (!p.cmd.method().equals("DEFAULT")) {
                throw new FrontierException("Unknown method " + p.cmd.method());
            }
            level = BlobEncoder.zipLevel(p.cmd.encoding());
            if (p.error != null) {
                throw new FrontierException(p.error);
            }
            if (conn[0] == null) {
                conn[0] = acquire(out);
                freshTransaction = true;
            }
        } catch (FrontierException e) {
            if (refused(e, conn[0], out, r)) {
                return keptOrRefused(req, resp, out, r, p);
            }
            errorEnd(req, resp, out, r, e.getMessage(), "");
            return r;
        }
        if (parsed.payloads.size() == 1 && lastModified == 0 && p.sources != null && !out.isCommitted()) {
            long lm;
            try {
                freshTransaction = false;
                lm = times.fetch(conn[0], p.sources, config.statementTimeoutSeconds());
            } catch (SQLException e) {
                if (refused(e, conn[0], out, r)) {
                    return keptOrRefused(req, resp, out, r, p);
                }
                errorEnd(req, resp, out, r, "Error getting last-modified time: " + e.getMessage(), "");
                return r;
            }
            if (ims > 0 && ims == lm) {
                r.notModified = true;
                return r;
            }
            if (lm > 0) {
                resp.setHeader("Last-Modified", httpDate(lm));
            }
        }
        FrontierAnswers.Flight flight = null;
        Set<String> stampTables = answers.stampTables(p.tables);
        PostgresPrelude.Result prelude = null; // stamp and estimate read in the query's own snapshot
        String[] stampWithQuery = null; // set when the prelude goes with the query: a request nothing is known for
        boolean preludeFirst = false;
        boolean costed = true;
        if (stampTables != null && postgres && freshTransaction) {
            try {
                preludeFirst = !conn[0].getAutoCommit(); // the query then shares the snapshot
            } catch (SQLException e) {
                preludeFirst = false; // the stamp is read on its own below, which reports the connection's state
            }
            if (preludeFirst) {
                costed = cost.wantsEstimate(p.sql, p.binds);
                flight = costed ? null : answers.claim(new FrontierAnswers.Key(p.sql, p.binds, level));
                stampWithQuery = flight != null ? new String[1] : null;
            }
        }
        if (stampTables != null && stampWithQuery == null) {
            String stamp;
            try {
                if (preludeFirst) {
                    prelude = PostgresPrelude.run(conn[0], stampTables, costed ? p.sql : null, p.binds,
                            config.statementTimeoutSeconds());
                    stamp = prelude.stamp();
                } else {
                    stamp = FrontierAnswers.stamp(conn[0], stampTables, config.statementTimeoutSeconds());
                }
            } catch (SQLException e) {
                prelude = null; // the query is costed on its own, as without the prelude
                if (refused(e, conn[0], out, r)) {
                    return keptOrRefused(req, resp, out, r, p);
                }
                stamp = null; // not kept: the query itself reports what is wrong
                try {
                    conn[0].rollback(); // PostgreSQL refuses further statements in a failed transaction
                } catch (SQLException ignored) {
                    // the query will report the connection's state
                }
            }
            if (stamp != null) {
                Keepalive ka = startKeepalive(out, config.maxDbExecuteSeconds());
                try {
                    flight = answers.begin(new FrontierAnswers.Key(p.sql, p.binds, level), stamp,
                            config.maxDbExecuteSeconds() * 1000L);
                } finally {
                    ka.stop();
                }
                if (flight.ready != null) {
                    out.writeShared(flight.ready.body());
                    return finishPayload(req, resp, out, r, p, flight.ready.rows(), flight.ready.md5(),
                            flight.ready.fullSize());
                }
            }
        }
        FrontierAnswers.Tee tee = flight != null && flight.mine != null ? answers.tee(out) : null;
        FrontierAnswers.Encoded published = null;
        try {
            // only a query that is about to run is costed: answers from the cache above are not
            try {
                if (prelude != null && prelude.cost() != null) {
                    cost.check(p.sql, p.binds, prelude.cost());
                } else if (stampWithQuery == null && prelude == null) { // else admitted without an estimate
                    checkCost(conn[0], p);
                }
            } catch (FrontierException e) {
                errorEnd(req, resp, out, r, e.getMessage(), "");
                return r;
            }
            BlobEncoder enc = BlobEncoder.forAnswer(tee == null ? out : tee, level, DEFLATE, answers.byContent());
            int rows;
            try {
                try {
                    rows = stampWithQuery != null
                            ? queryWithPrelude(conn[0], p, enc, out, stampTables, stampWithQuery)
                            : query(conn[0], p, enc, out, prelude != null);
                    if (stampWithQuery != null) {
                        flight = flight.at(stampWithQuery[0]);
                    }
                } catch (UncheckedIOException e) {
                    throw (IOException) e.getCause();
                }
                enc.close();
            } catch (FrontierException | SQLException e) {
                closeQuietly(enc);
                if (refused(e, conn[0], out, r)) {
                    return r;
                }
                String msg = e instanceof SQLException && !p.tables.isEmpty()
                        ? "While querying " + p.tables + ": " + oneLine(e.getMessage()) : describe(e);
                errorEnd(req, resp, out, r, msg, "md5=\"" + enc.md5Hex() + "\"");
                return r;
            } catch (IOException | RuntimeException e) {
                closeQuietly(enc); // the client went away or the driver failed: end the encoder's work all the same
                throw e;
            }
            byte[] body = tee == null ? null : tee.copy(enc.encodedText());
            if (body != null && rows > 0 && flight.stamp != null) {
                try {
                    // kept only if nothing was written to the tables while the query ran (after a prelude the query
                    // read the stamp's own snapshot)
                    if (prelude != null || stampWithQuery != null || flight.stamp.equals(
                            FrontierAnswers.stamp(conn[0], stampTables, config.statementTimeoutSeconds()))) {
                        published = new FrontierAnswers.Encoded(flight.stamp, body, enc.md5Hex(), rows, enc.fullSize());
                    }
                } catch (SQLException e) {
                    LOG.debug("stamp re-read failed, answer not kept: {}", e.toString());
                }
            }
            return finishPayload(req, resp, out, r, p, rows, enc.md5Hex(), enc.fullSize());
        } finally {
            if (flight != null) {
                answers.finish(flight, published);
            }
        }
    }

    /**
     * The database is unreachable: an answer this context kept for the payload is served (it was current when
     * last read, as the native API's cached answers are), with the short error max-age; otherwise the request
     * stays marked for a 503.
     */
    private Result keptOrRefused(HttpServletRequest req, HttpServletResponse resp, ResponseOutput out, Result r,
                                 Payload p) throws IOException {
        FrontierAnswers.Encoded kept;
        try {
            kept = p.sql == null || answers.stampTables(p.tables) == null ? null
                    : answers.kept(new FrontierAnswers.Key(p.sql, p.binds, BlobEncoder.zipLevel(p.cmd.encoding())));
        } catch (FrontierException e) {
            kept = null;
        }
        if (kept == null) {
            return r;
        }
        r.unavailable = null;
        setAge(req, resp, config.errorMaxAge());
        out.writeShared(kept.body());
        return finishPayload(req, resp, out, r, p, kept.rows(), kept.md5(), kept.fullSize());
    }

    /** The end of a payload whose records were sent: the empty-result rules, then the quality element. */
    private Result finishPayload(HttpServletRequest req, HttpServletResponse resp, ResponseOutput out, Result r,
                                 Payload p, int rows, String md5, long fullSize) throws IOException {
        if (rows == 0 && "forever".equals(p.cmd.param("ttl"))) {
            errorEnd(req, resp, out, r, "Empty result from query not allowed", "md5=\"" + md5 + "\"");
            return r;
        }
        context.metrics().rows(rows);
        long maxAge = 0;
        if (rows == 0 && config.expireEmptyQueriesLikeErrors()) {
            if (out.isCommitted()) {
                maxAge = config.errorMaxAge();
            } else {
                if (resp.getHeader("Last-Modified") != null) {
                    maxAge = config.errorMaxAge();
                }
                setAge(req, resp, config.errorMaxAge());
            }
        }
        payloadEnd(out, 0, "", maxAge, "md5=\"" + md5 + "\"", rows, fullSize);
        return r;
    }

    /** Upstream error_payload_end: short age and epoch Last-Modified if still possible, else a global error too. */
    private void errorEnd(HttpServletRequest req, HttpServletResponse resp, ResponseOutput out, Result r, String msg,
                          String check) throws IOException {
        long maxAge = 0;
        if (out.isCommitted()) {
            r.globalError = msg;
            maxAge = config.errorMaxAge();
        } else {
            setAge(req, resp, config.errorMaxAge());
            resp.setHeader("Last-Modified", EPOCH);
        }
        r.error = true;
        payloadEnd(out, 1, msg, maxAge, check, -1, 0);
    }

    private void payloadEnd(ResponseOutput out, int error, String msg, long maxAge, String check, long records,
                            long fullSize) throws IOException {
        StringBuilder b = new StringBuilder("</data>\n   <quality error=\"").append(error).append("\" ");
        if (!msg.isEmpty()) {
            b.append("message=\"").append(xml(config.serverName() + " " + msg)).append("\" ");
        }
        if (maxAge > 0) {
            b.append("max_age=\"").append(maxAge).append("\" ");
        }
        if (!check.isEmpty()) {
            b.append(check).append(' ');
        }
        if (records >= 0) {
            b.append("records=\"").append(records).append("\" ");
        }
        b.append("full_size=\"").append(fullSize).append("\"/>\n  </payload>\n");
        out.print(b.toString());
    }

    // ------------------------------------------------------------------ database

    /** Waits for a read-only connection, sending keepalives, for at most MaxDbAcquireSeconds. */
    private Connection acquire(ResponseOutput out) throws FrontierException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(config.maxDbAcquireSeconds());
        Keepalive ka = startKeepalive(out, config.maxDbAcquireSeconds());
        try {
            while (true) {
                try {
                    Connection c = context.database().readPool().getConnection();
                    if (!c.isReadOnly() && !context.database().dialect().name().equals("sqlite")) {
                        c.setReadOnly(true);
                    }
                    return c;
                } catch (SQLTransientConnectionException e) {
                    if (e.getCause() != null) {
                        // the pool could not connect at all (database down or unreachable): waiting longer for a
                        // free connection cannot help, so the client hears it now and can try another server
                        throw new DatabaseUnavailable("Error acquiring DB connection: database unreachable: "
                                + oneLine(e.getCause().getMessage()), e);
                    }
                    if (System.nanoTime() >= deadline) {
                        throw new DatabaseUnavailable("Timed out waiting to acquire DB connection", e);
                    }
                } catch (SQLException e) {
                    String msg = "Error acquiring DB connection: " + oneLine(e.getMessage());
                    throw DatabaseUnavailable.isOutage(e) ? new DatabaseUnavailable(msg, e) : new FrontierException(msg);
                }
            }
        } finally {
            ka.stop();
        }
    }

    /** The database's cost estimate against the configured limit, before the query runs. */
    private void checkCost(Connection c, Payload p) throws FrontierException {
        try {
            cost.checkEstimate(c, p.sql, p.binds, config.statementTimeoutSeconds());
        } catch (SQLException e) {
            // a statement the database cannot plan fails again when it runs, and is reported as usual from there
            LOG.debug("{} no cost estimate: {}", context.name(), e.toString());
            try {
                c.rollback();
            } catch (SQLException r) {
                LOG.debug("rollback failed: {}", r.toString());
            }
        }
    }

    /** @param timedByPrelude the transaction's statement timeout was set by {@link PostgresPrelude} */
    private int query(Connection c, Payload p, BlobEncoder enc, ResponseOutput out, boolean timedByPrelude)
            throws SQLException, FrontierException {
        if (!p.dictionary) {
            return runQuery(c, p, enc, out, postgres, timedByPrelude);
        }
        // Oracle data-dictionary views: answered from a snapshot of this database's catalog
        try (Connection snapshot = DataDictionary.snapshot(c, context.tables(), context.dictionaryOwner())) {
            return runQuery(snapshot, p, enc, out, false, false);
        } finally {
            try {
                c.rollback();
            } catch (SQLException e) {
                LOG.debug("rollback failed: {}", e.toString());
            }
        }
    }

    private int runQuery(Connection c, Payload p, BlobEncoder enc, ResponseOutput out, boolean untypedBinds,
                         boolean timedByPrelude) throws SQLException, FrontierException {
        Keepalive ka = startKeepalive(out, config.maxDbExecuteSeconds());
        ResultSet rs;
        PreparedStatement ps;
        try {
            ps = c.prepareStatement(p.sql, ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY);
            try {
                ps.setFetchSize(FetchSizing.FIRST);
                if (config.statementTimeoutSeconds() > 0 && !timedByPrelude) { // a JDBC timeout costs a timer task
                    ps.setQueryTimeout(config.statementTimeoutSeconds());
                }
                for (int i = 0; i < p.binds.size(); i++) {
                    if (untypedBinds) {
                        ps.setObject(i + 1, p.binds.get(i), Types.OTHER);
                    } else {
                        ps.setString(i + 1, p.binds.get(i));
                    }
                }
                rs = ps.executeQuery();
            } catch (SQLException | RuntimeException e) {
                ps.close();
                throw e;
            }
        } finally {
            ka.stop();
        }
        return readRows(c, ps, rs, enc, untypedBinds);
    }

    /**
     * A PostgreSQL query sent together with its prelude ({@link PostgresPrelude#withQuery}); {@code stamp[0]} gets
     * the tables' stamp read in the query's snapshot (null if a table has no sequence row).
     */
    private int queryWithPrelude(Connection c, Payload p, BlobEncoder enc, ResponseOutput out, Set<String> seqTables,
                                 String[] stamp) throws SQLException, FrontierException {
        Keepalive ka = startKeepalive(out, config.maxDbExecuteSeconds());
        PostgresPrelude.WithQuery q;
        try {
            q = PostgresPrelude.withQuery(c, seqTables, p.sql, p.binds, config.statementTimeoutSeconds(),
                    FetchSizing.FIRST);
        } finally {
            ka.stop();
        }
        stamp[0] = q.stamp();
        return readRows(c, q.statement(), q.rows(), enc, true);
    }

    /** The column header and rows of {@code rs} into {@code enc}; closes both and rolls the transaction back. */
    private int readRows(Connection c, PreparedStatement ps, ResultSet rs, BlobEncoder enc, boolean untypedBinds)
            throws SQLException {
        try (ps; rs) {
            ResultSetMetaData md = rs.getMetaData();
            int n = md.getColumnCount();
            boolean[] binary = new boolean[n + 1];
            try {
                for (int i = 1; i <= n; i++) {
                    String name;
                    String type;
                    if (oracle) {
                        name = md.getColumnName(i);
                        type = md.getColumnTypeName(i);
                        if ("NUMBER".equals(type) && md.getPrecision(i) != 0) {
                            type = type + "(" + md.getPrecision(i) + ")";
                        }
                        binary[i] = "BLOB".equals(md.getColumnTypeName(i));
                    } else {
                        name = md.getColumnLabel(i);
                        if (name != null && name.equals(name.toLowerCase(Locale.ROOT))) {
                            name = name.toUpperCase(Locale.ROOT);
                        }
                        type = oracleTypeName(md.getColumnType(i), md.getPrecision(i), md.getColumnTypeName(i));
                        binary[i] = type.equals("BLOB");
                    }
                    enc.writeString(name);
                    enc.writeString(type);
                }
                enc.writeEOR();
                int rows = 0;
                ColumnValues values = ColumnValues.of(rs, binary);
                while (rs.next()) {
                    rows++;
                    values.writeRow(rs, enc);
                    enc.writeEOR();
                    if (untypedBinds) { // PostgreSQL: fewer round trips for short rows
                        FetchSizing.afterRow(rs, rows, enc.fullSize());
                    }
                }
                return rows;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        } catch (UncheckedIOException e) {
            throw e;
        } finally {
            try {
                c.rollback();
            } catch (SQLException e) {
                LOG.debug("rollback failed: {}", e.toString());
            }
        }
    }

    /** Carries a client-side write failure through the JDBC code to the servlet, which stops sending. */
    private static final class UncheckedIOException extends RuntimeException {
        UncheckedIOException(IOException e) {
            super(e);
        }
    }

    /** Oracle-style type names for PostgreSQL/SQLite columns, so clients converting by type name keep working. */
    static String oracleTypeName(int jdbcType, int precision, String nativeName) {
        return switch (jdbcType) {
            case Types.BIGINT -> "NUMBER(20)";
            case Types.INTEGER, Types.SMALLINT, Types.TINYINT -> "NUMBER(10)";
            case Types.BIT, Types.BOOLEAN -> "NUMBER(1)";
            case Types.NUMERIC, Types.DECIMAL -> precision > 0 && precision <= 38 ? "NUMBER(" + precision + ")" : "NUMBER";
            case Types.REAL -> "BINARY_FLOAT";
            case Types.FLOAT, Types.DOUBLE -> "BINARY_DOUBLE";
            case Types.CHAR, Types.NCHAR -> "CHAR";
            case Types.VARCHAR, Types.NVARCHAR, Types.LONGVARCHAR, Types.LONGNVARCHAR, Types.CLOB, Types.NCLOB -> "VARCHAR2";
            case Types.BLOB, Types.BINARY, Types.VARBINARY, Types.LONGVARBINARY -> "BLOB";
            case Types.DATE -> "DATE";
            case Types.TIMESTAMP, Types.TIMESTAMP_WITH_TIMEZONE -> "TIMESTAMP";
            default -> nativeName == null ? "VARCHAR2" : nativeName.toUpperCase(Locale.ROOT);
        };
    }

    private static void release(Connection[] conn) {
        if (conn[0] != null) {
            try {
                conn[0].close();
            } catch (SQLException e) {
                LOG.warn("error releasing connection: {}", e.toString());
            }
            conn[0] = null;
        }
    }

    // ------------------------------------------------------------------ keepalives

    private final class Keepalive implements Runnable {
        private final ResponseOutput out;
        private int remaining;
        private boolean stopped;
        private ScheduledFuture<?> future;

        Keepalive(ResponseOutput out, int remaining) {
            this.out = out;
            this.remaining = remaining;
        }

        @Override
        public synchronized void run() {
            if (stopped || remaining <= 0) {
                return;
            }
            remaining--;
            try {
                out.keepalive();
                context.metrics().keepalive();
            } catch (IOException | RuntimeException e) {
                stopped = true;
            }
        }

        void stop() {
            synchronized (this) {
                stopped = true;
            }
            if (future != null) {
                future.cancel(false);
            }
        }
    }

    private Keepalive startKeepalive(ResponseOutput out, int limitSeconds) {
        long interval = config.keepaliveInterval().toMillis();
        int count = (int) Math.ceil(limitSeconds * 1000.0 / interval);
        Keepalive ka = new Keepalive(out, count);
        if (count > 0) {
            ka.future = TIMER.scheduleAtFixedRate(ka, interval, interval, TimeUnit.MILLISECONDS);
        }
        return ka;
    }

    // ------------------------------------------------------------------ headers and XML

    /** Cache-Control max-age, plus stale-if-error=N when the request carries max-stale=N (upstream setAgeExpires). */
    private void setAge(HttpServletRequest req, HttpServletResponse resp, long age) {
        String cc = req.getHeader("Cache-Control");
        if (config.sendStaleIfError() && cc != null) {
            int i = cc.indexOf("max-stale");
            if (i >= 0) {
                int eq = cc.indexOf('=', i);
                if (eq >= 0) {
                    int end = cc.indexOf(',', eq);
                    String v = cc.substring(eq + 1, end < 0 ? cc.length() : end).trim();
                    if (!v.isEmpty() && v.length() <= 10 && v.chars().allMatch(c -> c >= '0' && c <= '9')) {
                        resp.setHeader("Cache-Control", "max-age=" + age + ", stale-if-error=" + v);
                        return;
                    }
                }
            }
        }
        resp.setHeader("Cache-Control", "max-age=" + age);
    }

    private static void begin(ResponseOutput out) throws IOException {
        out.print("<?xml version=\"1.0\" encoding=\"US-ASCII\"?>\n"
                + "<!DOCTYPE frontier SYSTEM \"http://frontier.fnal.gov/frontier.dtd\">\n"
                + "<frontier version=\"" + FRONTIER_VERSION + "\" xmlversion=\"" + XML_VERSION + "\">\n");
    }

    static String httpDate(long millis) {
        long seconds = Math.floorDiv(millis, 1000);
        HttpDate last = lastHttpDate;
        if (last.seconds() != seconds) { // tables change rarely: the same Last-Modified is formatted once
            last = new HttpDate(seconds, DateTimeFormatter.RFC_1123_DATE_TIME.format(
                    java.time.Instant.ofEpochSecond(seconds).atZone(java.time.ZoneOffset.UTC)).replace("+0000", "GMT")
                    .replaceFirst(", (\\d) ", ", 0$1 "));
            lastHttpDate = last;
        }
        return last.text();
    }

    private record HttpDate(long seconds, String text) {
    }

    private static volatile HttpDate lastHttpDate = new HttpDate(Long.MIN_VALUE, "");

    /** Upstream xml_str: escapes &amp; ' " &gt; &lt;; other non-ASCII-printable characters become '?'. */
    static String xml(String s) {
        StringBuilder b = new StringBuilder(s.length() + 16);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '&' -> b.append("&amp;");
                case '\'' -> b.append("&apos;");
                case '"' -> b.append("&quot;");
                case '>' -> b.append("&gt;");
                case '<' -> b.append("&lt;");
                default -> b.append(c >= 0x20 && c < 0x7f ? c : c == '\n' || c == '\t' ? ' ' : '?');
            }
        }
        return b.toString();
    }

    private static String describe(Throwable e) {
        if (e instanceof FrontierException) {
            return e.getMessage();
        }
        return e.getClass().getSimpleName() + ": " + oneLine(e.getMessage());
    }

    private static String oneLine(String s) {
        if (s == null) {
            return "";
        }
        s = s.strip().replace('\n', ' ');
        return s.length() > 500 ? s.substring(0, 500) + "..." : s;
    }

    private static void closeQuietly(BlobEncoder enc) {
        try {
            enc.close();
        } catch (IOException | RuntimeException e) {
            // already failing
        }
    }
}
