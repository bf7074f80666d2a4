package io.outpost.frontier;

import io.outpost.frontier.answers.FrontierAnswers;
import io.outpost.frontier.encode.BlobEncoder;
import io.outpost.frontier.protocol.FrontierConfig;
import java.io.IOException;
import java.sql.SQLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last payload step: marks the computed answer for keeping at the stamp of the data it was read from, when the
 * stamp plan tells it, and ends the payload with its quality element.
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
        BlobEncoder enc = w.encoder();
        int rows = w.rows().count();
        byte[] body = w.tee() == null ? null : w.tee().copy(enc.encodedText());
        FrontierAnswers.Encoded keep = null;
        if (body != null && rows > 0) {
            String stamp = switch (w.plan()) {
                case StampPlan.NotKept n -> null;
                case StampPlan.ReadBefore r -> unchangedSince(w, r);
                // the query read the stamp's own snapshot
                case StampPlan.Prelude p -> p.stamp();
                case StampPlan.WithQuery q -> w.rows().stampWithQuery();
            };
            if (stamp != null) {
                keep = new FrontierAnswers.Encoded(stamp, body, enc.md5Hex(), rows, enc.fullSize());
            }
        }
        return ends.sent(w, rows, enc.md5Hex(), enc.fullSize(), keep);
    }

    /** The stamp read before the query if nothing was written to the tables while it ran, else null. */
    private String unchangedSince(PayloadWork w, StampPlan.ReadBefore before) {
        try {
            String now = FrontierAnswers.stamp(w.connection(), before.tables(), timeoutSeconds);
            w.exchange().transactionFresh(false);
            return before.stamp().text().equals(now) ? now : null;
        } catch (SQLException e) {
            LOG.debug("stamp re-read failed, answer not kept: {}", e.toString());
            return null;
        }
    }
}
