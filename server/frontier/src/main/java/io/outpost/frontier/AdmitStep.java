package io.outpost.frontier;

import io.outpost.frontier.cost.ClientConcurrencyLimit;
import io.outpost.frontier.cost.QueryCostGuard;
import io.outpost.frontier.cost.UntrustedSquids;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.concurrent.Semaphore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Admits the request within the context's MaxThreads and the client's MaxRequestsPerClient, or answers 503; what it
 * takes is given back when the request ends.
 */
final class AdmitStep implements StepChain.Step<FrontierExchange, Void> {
    private static final Logger LOG = LoggerFactory.getLogger(AdmitStep.class);
    private final String contextName;
    private final Semaphore threads;
    private final QueryCostGuard cost;
    private final UntrustedSquids squids = new UntrustedSquids();
    /** Set by Tomcat's RemoteIpValve on a request whose peer is a trusted proxy (Globals.REQUEST_FORWARDED_ATTRIBUTE). */
    private static final String FORWARDED_BY_TRUSTED_PROXY = "org.apache.tomcat.request.forwarded";

    AdmitStep(FrontierContext context, QueryCostGuard cost) {
        this.contextName = context.name();
        this.threads = new Semaphore(context.config().maxThreads(), true);
        this.cost = cost;
    }

    @Override
    public Void handle(FrontierExchange x, StepChain<FrontierExchange, Void> next) throws IOException {
        if (!threads.tryAcquire()) {
            x.response.setStatus(HttpServletResponse.SC_SERVICE_UNAVAILABLE);
            x.noStore(); // the moment's load: other clients asking the same URL may be answered
            x.outcome(RequestOutcome.BUSY);
            LOG.warn("{} id={} rejecting because servlet too busy", contextName, x.id);
            return null;
        }
        x.onEnd(threads::release);
        String client = ClientConcurrencyLimit.clientKey(x.request);
        // a cache's request (Via) whose peer Tomcat's RemoteIpValve did not trust (it marks the ones it did)
        boolean untrustedCache = x.request.getHeader("Via") != null
                && !Boolean.TRUE.equals(x.request.getAttribute(FORWARDED_BY_TRUSTED_PROXY));
        String untrusted = squids.saw(client, untrustedCache);
        if (untrusted != null) {
            LOG.warn("{}: {}", contextName, untrusted);
        }
        if (!cost.tryAcquireClient(client)) {
            // this client's own limit: never cached, as other clients asking the same URL are not refused
            x.response.setStatus(HttpServletResponse.SC_SERVICE_UNAVAILABLE);
            x.response.setHeader("Cache-Control", "no-store");
            x.response.setHeader("Retry-After", "1");
            x.outcome(RequestOutcome.CLIENT_BUSY);
            LOG.warn("{} id={} rejecting: client {} has {} requests running (MaxRequestsPerClient)", contextName,
                    x.id, client, cost.limits().maxRequestsPerClient());
            return null;
        }
        x.onEnd(() -> cost.releaseClient(client));
        return next.proceed(x);
    }
}
