package io.outpost.frontier;

import io.outpost.frontier.answers.FrontierAnswers;
import io.outpost.frontier.encode.BlobEncoder;
import io.outpost.frontier.protocol.CacheHeaders;
import io.outpost.frontier.protocol.Envelope;
import io.outpost.frontier.protocol.FrontierConfig;
import io.outpost.frontier.protocol.FrontierException;
import java.io.IOException;
import java.sql.SQLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The ways a payload ends, shared by the payload steps: records sent, an error, or the database unreachable. */
final class PayloadEnds {
    private static final Logger LOG = LoggerFactory.getLogger(PayloadEnds.class);
    private final FrontierContext context;
    private final FrontierConfig config;
    private final FrontierAnswers answers;

    PayloadEnds(FrontierContext context, FrontierAnswers answers) {
        this.context = context;
        this.config = context.config();
        this.answers = answers;
    }

    /**
     * The end of a payload whose records were sent: the empty-result rules, then the quality element; {@code keep}
     * is the answer to keep for others, or null.
     */
    PayloadOutcome sent(PayloadWork w, int rows, String md5, long fullSize, FrontierAnswers.Encoded keep)
            throws IOException {
        if (rows == 0 && "forever".equals(w.payload().cmd().param("ttl"))) {
            return error(w, "Empty result from query not allowed", "md5=\"" + md5 + "\"");
        }
        context.metrics().rows(rows);
        FrontierExchange x = w.exchange();
        long maxAge = 0;
        if (rows == 0 && config.expireEmptyQueriesLikeErrors()) {
            if (x.out.isCommitted()) {
                maxAge = config.errorMaxAge();
            } else {
                if (x.response.getHeader("Last-Modified") != null) {
                    maxAge = config.errorMaxAge();
                }
                x.setAge(config.errorMaxAge());
            }
        }
        x.out.print(Envelope.payloadEnd(config.serverName(), false, "", maxAge, "md5=\"" + md5 + "\"", rows,
                fullSize));
        return new PayloadOutcome.Sent(keep);
    }

    /** Counts an answer by where its rows came from ({@link FrontierMetrics#answer}). */
    void answeredFrom(String source) {
        context.metrics().answer(source);
    }

    /** Upstream error_payload_end: short age and epoch Last-Modified if still possible, else a global error too. */
    PayloadOutcome error(PayloadWork w, String message, String check) throws IOException {
        FrontierExchange x = w.exchange();
        long maxAge = 0;
        String globalError = null;
        if (x.out.isCommitted()) {
            globalError = message;
            maxAge = config.errorMaxAge();
        } else {
            x.setAge(config.errorMaxAge());
            x.response.setHeader("Last-Modified", CacheHeaders.EPOCH);
        }
        x.out.print(Envelope.payloadEnd(config.serverName(), true, message, maxAge, check, -1, 0));
        return new PayloadOutcome.Failed(globalError);
    }

    /** True if {@code e} means the database is unreachable and nothing has been sent yet (a 503 is still possible). */
    static boolean refused(Throwable e, PayloadWork w) {
        return (DatabaseUnavailable.isOutage(e) || DatabaseUnavailable.lostConnection(e, w.connection()))
                && !w.out().isCommitted();
    }

    /**
     * The database is unreachable: an answer this context kept for the payload is served (it was current when
     * last read, as the native API's cached answers are), with the short error max-age; otherwise the request is
     * refused with 503.
     */
    PayloadOutcome keptOrRefused(PayloadWork w, Throwable e) throws IOException {
        Payload p = w.payload();
        FrontierAnswers.Encoded kept;
        try {
            kept = p.sql() == null || answers.stampTables(p.tables()) == null ? null
                    : answers.kept(new FrontierAnswers.Key(p.sql(), p.binds(), BlobEncoder.zipLevel(p.cmd().encoding())));
        } catch (FrontierException unknownEncoding) {
            kept = null;
        }
        if (kept == null) {
            // the reason is logged, not sent: the database's own words may go in it
            Throwable why = e.getCause() != null ? e.getCause() : e;
            return new PayloadOutcome.Unavailable(oneLine(e.getMessage() + (why == e ? "" : " (" + why.getMessage() + ")")));
        }
        w.exchange().setAge(config.errorMaxAge());
        w.out().writeShared(kept.body());
        answeredFrom(FrontierMetrics.KEPT);
        return sent(w, kept.rows(), kept.md5(), kept.fullSize(), null);
    }

    /** A message on one line of at most 500 characters. */
    static String oneLine(String s) {
        if (s == null) {
            return "";
        }
        s = s.strip().replace('\n', ' ');
        return s.length() > 500 ? s.substring(0, 500) + "..." : s;
    }

    /** Where the client is told to look: the id of the request's lines in the server log. */
    static String loggedAs(FrontierExchange x) {
        return "the server logged it as id=" + x.id;
    }

    /**
     * A database failure as the client reads it: what failed, the SQL state (a standard code) and the id of the
     * server log line holding the database's own words, which may name tables, files, hosts or versions.
     */
    String databaseFailure(PayloadWork w, String what, SQLException e) {
        LOG.warn("{} id={} {} failed", context.name(), w.exchange().id, what, e);
        w.exchange().noStore(); // a failure of this moment, logged under this request's id
        String state = e.getSQLState() == null || e.getSQLState().isBlank() ? "" : " (SQL state " + e.getSQLState() + ")";
        return what + " failed" + state + "; " + loggedAs(w.exchange());
    }
}
