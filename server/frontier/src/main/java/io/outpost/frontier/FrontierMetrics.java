package io.outpost.frontier;

/** Counters of one context. {@link MicrometerFrontierMetrics} publishes them when Micrometer is present. */
public interface FrontierMetrics {
    /** Outcomes: ok, not_modified, payload_error, global_error, busy. */
    void request(String outcome);

    void keepalive();

    void rows(long n);

    /** An answer's rows came from held rows. */
    String HELD = "held";
    /** An answer's rows came from a database query. */
    String DATABASE = "database";
    /** An answer kept from an earlier identical request was sent again. */
    String KEPT = "kept";

    /** Where an answer's rows came from: {@link #HELD}, {@link #DATABASE} or {@link #KEPT}. */
    default void answer(String source) {
    }

    FrontierMetrics NONE = new FrontierMetrics() {
        @Override
        public void request(String outcome) {
        }

        @Override
        public void keepalive() {
        }

        @Override
        public void rows(long n) {
        }
    };
}
