package io.outpost.frontier;

import io.outpost.frontier.encode.BlobEncoder;
import io.outpost.frontier.protocol.Envelope;
import io.outpost.frontier.protocol.FrontierException;
import java.io.IOException;
import java.sql.SQLException;

/**
 * Starts the payload's element and readies what it needs: a known method, its zip level, SQL that passed the
 * checks, and the request's connection (taken by the first payload that needs it).
 */
final class OpenPayloadStep implements StepChain.Step<PayloadWork, PayloadOutcome> {
    private final DatabaseReads reads;
    private final PayloadEnds ends;

    OpenPayloadStep(DatabaseReads reads, PayloadEnds ends) {
        this.reads = reads;
        this.ends = ends;
    }

    @Override
    public PayloadOutcome handle(PayloadWork w, StepChain<PayloadWork, PayloadOutcome> next) throws IOException {
        Payload p = w.payload();
        w.out().print(Envelope.payloadStart(p.cmd()));
        try {
            if (!p.cmd().method().equals("DEFAULT")) {
                throw new FrontierException("Unknown method " + p.cmd().method());
            }
            w = w.atLevel(BlobEncoder.zipLevel(p.cmd().encoding()));
            if (p.error() != null) {
                throw new FrontierException(p.error());
            }
            if (w.connection() == null) {
                w.exchange().connection(reads.acquire(w.out()));
            }
        } catch (FrontierException e) {
            if (PayloadEnds.refused(e, w)) {
                return ends.keptOrRefused(w, e);
            }
            if (e.getCause() instanceof SQLException sql && !(e instanceof DatabaseUnavailable)) {
                return ends.error(w, ends.databaseFailure(w, e.getMessage(), sql), "");
            }
            return ends.error(w, e.getMessage(), "");
        }
        return next.proceed(w);
    }
}
