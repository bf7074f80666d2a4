package io.outpost.frontier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Steps run in order; a step that answers ends the chain; a step can act after the steps that follow it. */
class StepChainTest {

    @Test
    void stepsRunInOrderUntilOneAnswers() throws Exception {
        List<String> seen = new ArrayList<>();
        StepChain<List<String>, String> chain = new StepChain<>(List.of(
                (x, next) -> {
                    x.add("first");
                    try {
                        return next.proceed(x);
                    } finally {
                        x.add("first again"); // e.g. releasing what it took
                    }
                },
                (x, next) -> {
                    x.add("second");
                    return "answered by second";
                },
                (x, next) -> {
                    x.add("never");
                    return "never";
                }));
        assertThat(chain.proceed(seen)).isEqualTo("answered by second");
        assertThat(seen).containsExactly("first", "second", "first again");
    }

    @Test
    void aChainWhoseLastStepHandsOnIsAProgrammingError() {
        StepChain<Object, Object> chain = new StepChain<>(List.of((x, next) -> next.proceed(x)));
        assertThatThrownBy(() -> chain.proceed(new Object())).isInstanceOf(IllegalStateException.class);
    }
}
