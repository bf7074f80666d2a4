package io.outpost.frontier;

import io.outpost.frontier.answers.FrontierAnswers;
import java.io.IOException;

/**
 * Serves an answer kept (or being computed by an identical request) at the tables' current stamp; otherwise lets
 * this request compute it, copying what it sends, and publishes the answer, or gives the duty up, when the later
 * steps are done.
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
        if (w.stamp != null) {
            try (Keepalives.Keepalive ka = keepalives.start(w.out(), maxWaitSeconds)) {
                w.flight = answers.begin(w.key(), w.stamp, maxWaitSeconds * 1000L);
            }
            FrontierAnswers.Encoded ready = w.flight.ready();
            if (ready != null) {
                w.out().writeShared(ready.body());
                ends.answeredFrom(FrontierMetrics.KEPT);
                return ends.sent(w, ready.rows(), ready.md5(), ready.fullSize());
            }
        }
        if (w.flight == null) {
            return next.proceed(w);
        }
        w.tee = w.flight.publishes() ? new AnswerTee(w.out(), answers.maxEntryBytes()) : null;
        try {
            return next.proceed(w);
        } finally {
            answers.finish(w.flight, w.published);
        }
    }
}
