package io.outpost.frontier;

import io.outpost.frontier.protocol.CacheHeaders;
import io.outpost.frontier.protocol.FrontierConfig;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Frontier request on its way through the servlet's steps: the HTTP request and response, the body being
 * written, what parsing found, the database connection its payloads share, and how it ends.
 */
final class FrontierExchange {
    private static final Logger LOG = LoggerFactory.getLogger(FrontierExchange.class);

    final long id;
    final long startNanos = System.nanoTime();
    final HttpServletRequest request;
    final HttpServletResponse response;
    final ResponseOutput out;
    private final FrontierConfig config;
    private final Deque<Runnable> releases = new ArrayDeque<>();
    private List<Payload> payloads = List.of();
    private long maxAge;
    private long lastModified;
    private long ifModifiedSince;
    private Connection connection;
    /** Nothing has run on the connection since it was taken or its last transaction ended. */
    private boolean transactionFresh;
    private RequestOutcome outcome = RequestOutcome.OK;
    private String globalError;
    private boolean body = true;
    /** Set once the answer must not be stored by any cache: later max-ages do not undo it. */
    private boolean noStore;

    FrontierExchange(long id, HttpServletRequest request, HttpServletResponse response, ResponseOutput out,
                     FrontierConfig config) {
        this.id = id;
        this.request = request;
        this.response = response;
        this.out = out;
        this.config = config;
    }

    FrontierConfig config() {
        return config;
    }

    void parsed(List<Payload> payloads, long maxAge) {
        this.payloads = List.copyOf(payloads);
        this.maxAge = maxAge;
    }

    List<Payload> payloads() {
        return payloads;
    }

    long maxAge() {
        return maxAge;
    }

    /**
     * @param lastModified the tables' time known without asking the database: -1 none possible, 0 not known yet
     * @param ifModifiedSince the request's If-Modified-Since, -1 if none
     */
    void times(long lastModified, long ifModifiedSince) {
        this.lastModified = lastModified;
        this.ifModifiedSince = ifModifiedSince;
    }

    long lastModified() {
        return lastModified;
    }

    long ifModifiedSince() {
        return ifModifiedSince;
    }

    /** The connection the payloads share, null until the first one needs it. */
    Connection connection() {
        return connection;
    }

    void connection(Connection c) {
        this.connection = c;
        this.transactionFresh = true;
    }

    /**
     * True while nothing has run in the connection's transaction: PostgreSQL then still takes the prelude's SET
     * TRANSACTION (a new transaction begins with the next statement after a rollback).
     */
    boolean transactionFresh() {
        return transactionFresh;
    }

    /** A statement ran in the connection's transaction ({@code false}), or the transaction ended ({@code true}). */
    void transactionFresh(boolean fresh) {
        this.transactionFresh = fresh;
    }

    /** Runs {@code release} when the request ends (the latest first). */
    void onEnd(Runnable release) {
        releases.push(release);
    }

    /** Cache-Control for this response (with stale-if-error when the client asked for max-stale). */
    void setAge(long seconds) {
        if (!noStore) {
            CacheHeaders.setAge(request, response, seconds, config.sendStaleIfError());
        }
    }

    /**
     * This answer must not be stored by a cache (unless already on its way): it says something about this request
     * or this moment (a refusal for the request's headers or the service's load, a failure logged under this
     * request's id), not about its URL, so a cache must not give it to other clients asking the same URL. A
     * departure from upstream Frontier, which gives errors its error max-age (docs/frontier.md).
     */
    void noStore() {
        noStore = true;
        if (!response.isCommitted()) {
            response.setHeader("Cache-Control", "no-store");
        }
    }

    void outcome(RequestOutcome o) {
        this.outcome = o;
    }

    RequestOutcome outcome() {
        return outcome;
    }

    /** The request ends with this global error after what was sent (null: none). */
    void globalError(String message) {
        this.globalError = message;
    }

    String globalError() {
        return globalError;
    }

    /** The response has no (more) body: its status says all, or the client is gone. */
    void noBody(RequestOutcome o) {
        this.body = false;
        this.outcome = o;
    }

    boolean sendsBody() {
        return body;
    }

    /** Closes the connection and releases what the steps took. */
    void release() {
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException e) {
                LOG.warn("error releasing connection: {}", e.toString());
            }
            connection = null;
        }
        while (!releases.isEmpty()) {
            releases.pop().run();
        }
    }
}
