package io.outpost.frontier;

/** Counters of one context. {@link MicrometerFrontierMetrics} publishes them when Micrometer is present. */
public interface FrontierMetrics {
    /** Outcomes: ok, not_modified, payload_error, global_error, busy. */
    void request(String outcome);

    void keepalive();

    void rows(long n);

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
