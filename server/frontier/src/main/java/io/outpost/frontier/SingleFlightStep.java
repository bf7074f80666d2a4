package io.outpost.frontier;

import io.outpost.frontier.answers.FrontierAnswers;
import io.outpost.frontier.protocol.FrontierConfig;
import java.io.IOException;

/**
 * Serves an answer kept (or being computed by an identical request) at the tables' current stamp; otherwise lets
 * this request compute it, copying what it sends, and publishes the answer the later steps mark for keeping
 * ({@link PayloadOutcome.Sent#keep}), or gives the duty up, once they are done.
 */
final class SingleFlightStep implements StepChain.Step<PayloadWork, PayloadOutcome> {
    private final FrontierAnswers answers;
    private final Keepalives keepalives;
    private final PayloadEnds ends;
    private final int maxWaitSeconds;

    SingleFlightStep(FrontierAnswers answers, Keepalives keepalives, PayloadEnds ends, FrontierConfig config) {
        this.answers = answers;
        this.keepalives = keepalives;
        this.ends = ends;
        this.maxWaitSeconds = config.maxDbExecuteSeconds();
    }

    @Override
    public PayloadOutcome handle(PayloadWork w, StepChain<PayloadWork, PayloadOutcome> next) throws IOException {
        FrontierAnswers.Flight flight = switch (w.plan()) {
            case StampPlan.NotKept n -> null;
            case StampPlan.ReadBefore r -> begin(w, r.stamp().text());
            case StampPlan.Prelude p -> p.stamp() == null ? null : begin(w, p.stamp());
            case StampPlan.WithQuery q -> q.claimed();
        };
        if (flight == null) {
            return next.proceed(w);
        }
        FrontierAnswers.Encoded ready = flight.ready();
        if (ready != null) {
            w.out().writeShared(ready.body());
            ends.answeredFrom(FrontierMetrics.KEPT);
            return ends.sent(w, ready.rows(), ready.md5(), ready.fullSize(), null);
        }
        AnswerTee tee = flight.publishes() ? new AnswerTee(w.out(), answers.maxEntryBytes()) : null;
        FrontierAnswers.Encoded keep = null;
        try {
            PayloadOutcome outcome = next.proceed(w.copiedTo(tee));
            keep = outcome instanceof PayloadOutcome.Sent sent ? sent.keep() : null;
            return outcome;
        } finally {
            answers.finish(flight, keep);
        }
    }

    /** The request's turn at {@code stamp}: a kept answer, an identical request's, or the duty to compute. */
    private FrontierAnswers.Flight begin(PayloadWork w, String stamp) {
        try (Keepalives.Keepalive ka = keepalives.start(w.out(), maxWaitSeconds)) {
            return answers.begin(w.key(), stamp, maxWaitSeconds * 1000L);
        }
    }
}
