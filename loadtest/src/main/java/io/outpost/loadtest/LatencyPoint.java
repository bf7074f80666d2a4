package io.outpost.loadtest;

/** One point of a latency distribution: the latency (ms) below which {@code percentile} % of requests completed. */
public record LatencyPoint(double percentile, double millis) {
}
