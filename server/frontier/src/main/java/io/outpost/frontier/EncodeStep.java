package io.outpost.frontier;

import io.outpost.frontier.answers.FrontierAnswers;
import java.io.IOException;
import java.util.concurrent.Executor;

/**
 * Readies the encoder of the payload's records, at the payload's zip level, writing to the response (through the
 * copy kept for waiting requests when this request computes for them).
 */
final class EncodeStep implements StepChain.Step<PayloadWork, PayloadOutcome> {
    private final FrontierAnswers answers;
    private final Executor compressor;

    EncodeStep(FrontierAnswers answers, Executor compressor) {
        this.answers = answers;
        this.compressor = compressor;
    }

    @Override
    public PayloadOutcome handle(PayloadWork w, StepChain<PayloadWork, PayloadOutcome> next) throws IOException {
        w.encoder = BlobEncoder.forAnswer(w.tee == null ? w.out() : w.tee, w.level, compressor, answers.byContent());
        return next.proceed(w);
    }
}
