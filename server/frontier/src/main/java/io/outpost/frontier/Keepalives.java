package io.outpost.frontier;

import io.outpost.frontier.protocol.FrontierConfig;
import java.io.IOException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Keepalive elements sent while a request waits for a connection or a query, so that frontier_client and Squid
 * do not time the request out; each wait sends them for at most its own limit.
 */
final class Keepalives {
    private final ScheduledExecutorService timer;
    private final long intervalMillis;
    private final FrontierMetrics metrics;

    Keepalives(ScheduledExecutorService timer, FrontierConfig config, FrontierMetrics metrics) {
        this.timer = timer;
        this.intervalMillis = config.keepaliveInterval().toMillis();
        this.metrics = metrics;
    }

    /** Sends keepalives to {@code out} every interval for at most {@code limitSeconds}, until closed. */
    Keepalive start(ResponseOutput out, int limitSeconds) {
        int count = (int) Math.ceil(limitSeconds * 1000.0 / intervalMillis);
        Keepalive ka = new Keepalive(out, count);
        if (count > 0) {
            ka.future = timer.scheduleAtFixedRate(ka, intervalMillis, intervalMillis, TimeUnit.MILLISECONDS);
        }
        return ka;
    }

    /** The keepalives of one wait; closing it stops them. */
    final class Keepalive implements Runnable, AutoCloseable {
        private final ResponseOutput out;
        private int remaining;
        private boolean stopped;
        private ScheduledFuture<?> future;

        private Keepalive(ResponseOutput out, int remaining) {
            this.out = out;
            this.remaining = remaining;
        }

        @Override
        public synchronized void run() {
            if (stopped || remaining <= 0) {
                return;
            }
            remaining--;
            try {
                out.keepalive();
                metrics.keepalive();
            } catch (IOException | RuntimeException e) {
                stopped = true;
            }
        }

        @Override
        public void close() {
            synchronized (this) {
                stopped = true;
            }
            if (future != null) {
                future.cancel(false);
            }
        }
    }
}
