package io.outpost.frontier;

import java.io.IOException;
import java.util.List;

/**
 * An ordered chain of steps over one exchange: each step does one thing and either hands the exchange on with
 * {@link #proceed} or answers itself (returns without proceeding). A step may also wrap what follows it, e.g. to
 * release what it took once the later steps are done.
 *
 * @param <X> the exchange the steps share
 * @param <R> what the chain answers
 */
final class StepChain<X, R> {
    interface Step<X, R> {
        R handle(X exchange, StepChain<X, R> next) throws IOException;
    }

    private final List<Step<X, R>> steps;
    private final int index;

    StepChain(List<Step<X, R>> steps) {
        this(List.copyOf(steps), 0);
    }

    private StepChain(List<Step<X, R>> steps, int index) {
        this.steps = steps;
        this.index = index;
    }

    /** Runs the next step; past the last step there is nothing left to run. */
    R proceed(X exchange) throws IOException {
        if (index >= steps.size()) {
            throw new IllegalStateException("the last step of a chain must answer");
        }
        return steps.get(index).handle(exchange, new StepChain<>(steps, index + 1));
    }
}
