package io.outpost.frontier;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/** Micrometer counters {@code outpost.frontier.requests{context,outcome}}, {@code .keepalives}, {@code .rows}. */
public final class MicrometerFrontierMetrics implements FrontierMetrics {
    private final MeterRegistry registry;
    private final String context;
    private final Counter keepalives;
    private final Counter rows;

    public MicrometerFrontierMetrics(MeterRegistry registry, String context) {
        this.registry = registry;
        this.context = context;
        this.keepalives = Counter.builder("outpost.frontier.keepalives").tag("context", context).register(registry);
        this.rows = Counter.builder("outpost.frontier.rows").tag("context", context).register(registry);
    }

    @Override
    public void request(String outcome) {
        Counter.builder("outpost.frontier.requests").tag("context", context).tag("outcome", outcome)
                .register(registry).increment();
    }

    /** {@code outpost.frontier.answers{context,source}}: where the payloads' answers came from. */
    @Override
    public void answer(String source) {
        Counter.builder("outpost.frontier.answers").tag("context", context).tag("source", source)
                .description("Frontier answers by where their rows came from").register(registry).increment();
    }

    @Override
    public void keepalive() {
        keepalives.increment();
    }

    @Override
    public void rows(long n) {
        rows.increment(n);
    }
}
