package io.outpost.frontier;

import io.outpost.frontier.protocol.CacheHeaders;
import io.outpost.frontier.protocol.Envelope;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last step of a request: the envelope's transaction, with each payload run through the payload steps in turn.
 * A payload's end decides the request's: on to the next, stop at an error, or turn the whole answer into a 304 or
 * a 503 while nothing has been sent yet.
 */
final class TransactionStep implements StepChain.Step<FrontierExchange, Void> {
    private static final Logger LOG = LoggerFactory.getLogger(TransactionStep.class);
    private final String contextName;
    private final StepChain<PayloadWork, PayloadOutcome> payloadSteps;

    TransactionStep(String contextName, StepChain<PayloadWork, PayloadOutcome> payloadSteps) {
        this.contextName = contextName;
        this.payloadSteps = payloadSteps;
    }

    @Override
    public Void handle(FrontierExchange x, StepChain<FrontierExchange, Void> next) throws IOException {
        if (x.lastModified() > 0) {
            x.response.setHeader("Last-Modified", CacheHeaders.httpDate(x.lastModified()));
        }
        x.out.print(Envelope.PROLOGUE);
        x.out.print(Envelope.transactionStart(x.payloads().size()));
        try {
            for (Payload p : x.payloads()) {
                PayloadOutcome outcome = payloadSteps.proceed(new PayloadWork(x, p));
                switch (outcome) {
                    case PayloadOutcome.Sent sent -> {
                    }
                    case PayloadOutcome.Unavailable u -> {
                        x.out.discard();
                        DatabaseUnavailable.refuse(x.response);
                        x.out.print(Envelope.END);
                        x.out.finish();
                        x.noBody(RequestOutcome.DB_UNAVAILABLE);
                        LOG.warn("{} id={} 503, database unavailable: {}", contextName, x.id, u.reason());
                        return null;
                    }
                    case PayloadOutcome.NotModified n -> {
                        x.out.discard();
                        x.response.setStatus(HttpServletResponse.SC_NOT_MODIFIED);
                        x.noBody(RequestOutcome.NOT_MODIFIED);
                        return null;
                    }
                    case PayloadOutcome.Failed failed -> {
                        x.outcome(RequestOutcome.PAYLOAD_ERROR);
                        x.globalError(failed.globalError());
                        return null;
                    }
                }
            }
            return null;
        } finally {
            if (x.sendsBody()) {
                x.out.print(Envelope.TRANSACTION_END);
            }
        }
    }
}
