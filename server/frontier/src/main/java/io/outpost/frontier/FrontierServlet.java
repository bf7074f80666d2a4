package io.outpost.frontier;

import io.outpost.frontier.answers.FrontierAnswers;
import io.outpost.frontier.answers.TableTimes;
import io.outpost.frontier.cost.QueryCostGuard;
import io.outpost.frontier.cost.QueryCostLimits;
import io.outpost.frontier.protocol.Envelope;
import io.outpost.frontier.protocol.FrontierConfig;
import io.outpost.frontier.sql.FrontierDialect;
import io.outpost.frontier.sql.FrontierDialects;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Frontier servlet of one context, compatible with upstream servlet 3.42 and frontier_client 2.x: same URL
 * forms, same XML envelope and record stream, same error and caching behaviour (see docs/frontier.md).
 * Register it at {@link FrontierContext#servletMapping()}.
 *
 * <p>Each request is one {@link FrontierExchange} run through an ordered chain of steps: parse, 304 from cached
 * table times, admission, then the transaction, which runs each payload through its own steps: open (connection),
 * held rows (COOL's IOV reads answered from memory), stamp (the {@link StampPlan} the later steps follow), Last-Modified, single flight, cost, encode, execute,
 * publish. A payload's state goes from step to step as a value ({@link PayloadWork}).
 */
public class FrontierServlet extends HttpServlet {
    public static final String FRONTIER_VERSION = Envelope.FRONTIER_VERSION;
    public static final String XML_VERSION = Envelope.XML_VERSION;
    private static final Logger LOG = LoggerFactory.getLogger(FrontierServlet.class);
    private static final AtomicLong IDS = new AtomicLong();

    private final transient FrontierContext context;
    private final transient FrontierRuntime runtime;
    /** The runtime was made by this servlet, which closes it when destroyed. */
    private final boolean ownsRuntime;
    private final transient FrontierAnswers answers;
    private final transient StatementChecks checks;
    private final transient StepChain<FrontierExchange, Void> steps;

    /** A servlet with its own {@link FrontierRuntime}, closed when the servlet is destroyed. */
    public FrontierServlet(FrontierContext context) {
        this(context, FrontierAnswers.DEFAULT_MAX_BYTES, QueryCostLimits.defaults());
    }

    /**
     * A servlet with its own {@link FrontierRuntime}, closed when the servlet is destroyed.
     *
     * @param answerCacheBytes bytes of encoded answers kept (0: none)
     */
    public FrontierServlet(FrontierContext context, long answerCacheBytes) {
        this(context, answerCacheBytes, QueryCostLimits.defaults());
    }

    /** A servlet with its own {@link FrontierRuntime}, closed when the servlet is destroyed. */
    public FrontierServlet(FrontierContext context, QueryCostLimits costLimits) {
        this(context, FrontierAnswers.DEFAULT_MAX_BYTES, costLimits);
    }

    /** A servlet with its own {@link FrontierRuntime}, closed when the servlet is destroyed. */
    public FrontierServlet(FrontierContext context, long answerCacheBytes, QueryCostLimits costLimits) {
        this(context, new FrontierRuntime(), true, answerCacheBytes, costLimits, null);
    }

    /**
     * @param runtime          the keepalive timer and compression pool, owned (and closed) by the caller
     * @param answerCacheBytes bytes of encoded answers kept (0: none)
     * @param costLimits       what one request may cost the database (see {@link QueryCostGuard})
     */
    public FrontierServlet(FrontierContext context, FrontierRuntime runtime, long answerCacheBytes,
                           QueryCostLimits costLimits) {
        this(context, runtime, false, answerCacheBytes, costLimits, null);
    }

    /**
     * As above, answering COOL's IOV reads of folders whose rows {@code held} holds from those rows (see
     * docs/frontier.md); null: every query goes to the database.
     */
    public FrontierServlet(FrontierContext context, FrontierRuntime runtime, long answerCacheBytes,
                           QueryCostLimits costLimits, HeldFolderReads held) {
        this(context, runtime, false, answerCacheBytes, costLimits, held);
    }

    private FrontierServlet(FrontierContext context, FrontierRuntime runtime, boolean ownsRuntime,
                            long answerCacheBytes, QueryCostLimits costLimits, HeldFolderReads held) {
        this.context = context;
        this.runtime = runtime;
        this.ownsRuntime = ownsRuntime;
        FrontierConfig config = context.config();
        this.answers = new FrontierAnswers(context.database().prefix(), answerCacheBytes);
        FrontierDialect dialect = FrontierDialects.of(context.database().dialect());
        QueryCostGuard cost = new QueryCostGuard(costLimits, dialect);
        TableTimes times = new TableTimes(context.database().prefix(), config.validateLastModifiedSeconds());
        this.checks = new StatementChecks(context, dialect, cost, runtime.parser());
        Keepalives keepalives = new Keepalives(runtime.keepaliveTimer(), config, context.metrics());
        DatabaseReads reads = new DatabaseReads(context, dialect, keepalives);
        PayloadEnds ends = new PayloadEnds(context, answers);
        StepChain<PayloadWork, PayloadOutcome> payloadSteps = new StepChain<>(List.of(
                new OpenPayloadStep(reads, ends),
                new HeldStep(held, times, reads, answers, ends),
                new StampStep(answers, cost, ends, dialect, config),
                new LastModifiedStep(times, ends, config),
                new SingleFlightStep(answers, keepalives, ends, config),
                new CostStep(cost, ends, context),
                new EncodeStep(answers),
                new ExecuteStep(reads, ends),
                new PublishStep(ends, config)));
        this.steps = new StepChain<>(List.of(
                // admitted first: parsing a crafted statement costs CPU, so it runs within MaxThreads and
                // MaxRequestsPerClient too
                new AdmitStep(context, cost),
                new ParseStep(context, checks, times, costLimits.maxParseMillisPerRequest()),
                new CachedNotModifiedStep(times),
                new TransactionStep(context.name(), payloadSteps)));
    }

    public FrontierContext context() {
        return context;
    }

    /**
     * Re-reads the coverage of a context serving an offline snapshot, after a sync changed what it holds (the
     * service calls this when its catalog poll sees a change); nothing to do on an ordinary database.
     */
    public void reloadSnapshotCoverage() {
        checks.reloadSnapshotCoverage();
    }

    FrontierRuntime runtime() {
        return runtime;
    }

    /** The context's answer cache (its counters show hits, loads and joins). */
    public FrontierAnswers answers() {
        return answers;
    }

    @Override
    public void destroy() {
        if (ownsRuntime) {
            runtime.close();
        }
        super.destroy();
    }

    @Override
    protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        FrontierExchange x = new FrontierExchange(IDS.incrementAndGet(), req, resp,
                new ResponseOutput(resp, context.config().responseBufferBytes()),
                context.config());
        resp.setContentType("text/xml");
        resp.setCharacterEncoding("US-ASCII");
        try {
            steps.proceed(x);
        } catch (IOException e) {
            // the client went away: nothing more can be sent
            x.noBody(RequestOutcome.CLIENT_ABORT);
            LOG.info("{} id={} client disconnected: {}", context.name(), x.id, e.toString());
        } catch (RuntimeException | Error e) {
            LOG.error("{} id={} internal error", context.name(), x.id, e);
            // the exception may name tables, files or versions: the client reads the id of the log line instead
            x.globalError("Internal Error; " + PayloadEnds.loggedAs(x));
            x.noStore();
        } finally {
            end(x);
        }
    }

    /** The end of every request: the global error and end tag when a body is due, then what it held is released. */
    private void end(FrontierExchange x) {
        try {
            if (x.sendsBody()) {
                if (x.globalError() != null) {
                    x.outcome(RequestOutcome.GLOBAL_ERROR);
                    x.out.print(Envelope.globalError(context.config().serverName(), x.globalError()));
                }
                x.out.print(Envelope.END);
                x.out.finish();
            }
        } catch (IOException e) {
            LOG.info("{} id={} client disconnected at end: {}", context.name(), x.id, e.toString());
        } finally {
            x.release();
            context.metrics().request(x.outcome().metricName);
            LOG.debug("{} id={} stop outcome={} committed={} msecs={}", context.name(), x.id,
                    x.outcome().metricName, x.out.isCommitted(), (System.nanoTime() - x.startNanos) / 1_000_000);
        }
    }
}
