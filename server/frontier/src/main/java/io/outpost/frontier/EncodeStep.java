package io.outpost.frontier;

import io.outpost.frontier.answers.FrontierAnswers;
import io.outpost.frontier.encode.BlobEncoder;
import java.io.IOException;

/**
 * Readies the encoder of the payload's records, at the payload's zip level, writing to the response (through the
 * copy kept for waiting requests when this request computes for them).
 */
final class EncodeStep implements StepChain.Step<PayloadWork, PayloadOutcome> {
    private final FrontierAnswers answers;

    EncodeStep(FrontierAnswers answers) {
        this.answers = answers;
    }

    @Override
    public PayloadOutcome handle(PayloadWork w, StepChain<PayloadWork, PayloadOutcome> next) throws IOException {
        return next.proceed(w.encodedBy(new BlobEncoder(w.tee() == null ? w.out() : w.tee(), w.level(),
                answers.byContent())));
    }
}
