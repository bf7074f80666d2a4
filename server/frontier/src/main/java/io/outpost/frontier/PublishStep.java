package io.outpost.frontier;

import io.outpost.frontier.encode.BlobEncoder;
import io.outpost.frontier.answers.FrontierAnswers;
import java.io.IOException;
import java.sql.SQLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last payload step: marks the computed answer for keeping when it is still current, and ends the payload
 * with its quality element.
 */
final class PublishStep implements StepChain.Step<PayloadWork, PayloadOutcome> {
    private static final Logger LOG = LoggerFactory.getLogger(PublishStep.class);
    private final PayloadEnds ends;
    private final int timeoutSeconds;

    PublishStep(PayloadEnds ends, FrontierConfig config) {
        this.ends = ends;
        this.timeoutSeconds = config.statementTimeoutSeconds();
    }

    @Override
    public PayloadOutcome handle(PayloadWork w, StepChain<PayloadWork, PayloadOutcome> next) throws IOException {
        BlobEncoder enc = w.encoder;
        byte[] body = w.tee == null ? null : w.tee.copy(enc.encodedText());
        if (body != null && w.rows > 0 && w.flight.stamp() != null) {
            try {
                // kept only if nothing was written to the tables while the query ran (after a prelude the query
                // read the stamp's own snapshot)
                if (w.prelude != null || w.stampWithQuery || w.flight.stamp().equals(
                        FrontierAnswers.stamp(w.connection(), w.stampTables, timeoutSeconds))) {
                    w.published = new FrontierAnswers.Encoded(w.flight.stamp(), body, enc.md5Hex(), w.rows,
                            enc.fullSize());
                }
            } catch (SQLException e) {
                LOG.debug("stamp re-read failed, answer not kept: {}", e.toString());
            }
        }
        return ends.sent(w, w.rows, enc.md5Hex(), enc.fullSize());
    }
}
