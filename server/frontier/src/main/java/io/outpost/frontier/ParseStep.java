package io.outpost.frontier;

import io.outpost.frontier.answers.TableTimes;
import io.outpost.frontier.protocol.CacheHeaders;
import io.outpost.frontier.protocol.Envelope;
import io.outpost.frontier.protocol.FrontierCommand;
import io.outpost.frontier.protocol.FrontierException;
import io.outpost.frontier.protocol.FrontierRequest;
import io.outpost.frontier.protocol.PayloadSql;
import io.outpost.frontier.sql.SqlGuard;
import java.io.IOException;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the request's payloads and checks their SQL. A request that is not a Frontier request at all is answered
 * with a global error; a payload whose SQL is refused carries its error to its turn.
 */
final class ParseStep implements StepChain.Step<FrontierExchange, Void> {
    private static final Logger LOG = LoggerFactory.getLogger(ParseStep.class);
    private final FrontierContext context;
    private final StatementChecks checks;
    private final TableTimes times;
    /**
     * Parse time one request may use over all its payloads (up to 32): each statement has the parser's own timeout,
     * and once this is spent the remaining payloads are refused unparsed, so a request of crafted statements costs
     * about this much CPU, not 32 timeouts (MaxParseMillisPerRequest).
     */
    private final long parseBudgetNanos;

    ParseStep(FrontierContext context, StatementChecks checks, TableTimes times, long parseBudgetMillis) {
        this.parseBudgetNanos = parseBudgetMillis * 1_000_000;
        this.context = context;
        this.checks = checks;
        this.times = times;
    }

    @Override
    public Void handle(FrontierExchange x, StepChain<FrontierExchange, Void> next) throws IOException {
        FrontierRequest request;
        try {
            request = FrontierRequest.parse(x.request);
        } catch (FrontierException e) {
            LOG.info("{} id={} request error: {}", context.name(), x.id, e.getMessage());
            x.noStore(); // about this request (its headers, its method), not its URL
            x.response.setHeader("Last-Modified", CacheHeaders.EPOCH);
            x.out.print(Envelope.PROLOGUE);
            x.globalError("Error: " + e.getMessage());
            return null;
        }
        LOG.debug("{} query {} raddr {} frontier-id: {} via: {} x-forwarded-for: {}", context.name(),
                FrontierRequest.commandText(x.request), x.request.getRemoteAddr(),
                x.request.getHeader("X-Frontier-Id"), x.request.getHeader("Via"),
                x.request.getHeader("X-Forwarded-For"));
        List<Payload> payloads = new ArrayList<>();
        long start = System.nanoTime();
        for (FrontierCommand c : request.commands()) {
            if (System.nanoTime() - start > parseBudgetNanos) {
                x.noStore(); // depends on the moment's load, not on the URL
                payloads.add(Payload.failed(c, "SQL rejected: the request's statements took too long to analyse"));
            } else {
                payloads.add(check(x, c));
            }
        }
        x.parsed(payloads, request.ttl().maxAgeSeconds(x.config(), ZonedDateTime.now(x.config().zone())));
        return next.proceed(x);
    }

    /** Decodes p1, applies the bind-variable rule and checks/translates the SQL; failures become payload errors. */
    private Payload check(FrontierExchange x, FrontierCommand cmd) {
        try {
            PayloadSql sql = PayloadSql.of(cmd);
            SqlGuard.Checked checked = checks.check(sql.statement(), sql.binds());
            return new Payload(cmd, checked.sql(), sql.binds(), checked.tables(),
                    checked.dictionary() ? null : times.sources(checked.tables()), checked.dictionary(), null,
                    sql.binds().isEmpty() && checked.coolRead() != null ? checked.coolRead().read() : null);
        } catch (FrontierException e) {
            if (e.getCause() != null) {
                // the analyser itself failed: what it threw is for the log, under the request's id, on one line (a
                // crafted statement repeated must not fill the log with stacks)
                LOG.warn("{} id={} statement analysis failed: {}", context.name(), x.id, oneLine(e.getCause()));
                x.noStore(); // names this request's id
                return Payload.failed(cmd, e.getMessage() + "; " + PayloadEnds.loggedAs(x));
            }
            return Payload.failed(cmd, e.getMessage());
        }
    }

    /** A failure as one log line: its class, message and the frame it was thrown from. */
    static String oneLine(Throwable t) {
        StackTraceElement[] frames = t.getStackTrace();
        String at = frames.length == 0 ? "" : " at " + frames[0];
        return PayloadEnds.oneLine(t + at);
    }
}
