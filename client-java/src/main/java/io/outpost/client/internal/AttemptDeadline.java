package io.outpost.client.internal;

import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The end of one attempt ({@code attempttimeoutsecs}): connect, request and the whole answer. When it passes, the
 * connection is dropped from the transport's timer thread (a read blocked on it then fails), and every later read of
 * the body fails; {@link #cancel()} ends the watch once the attempt is over.
 */
final class AttemptDeadline {

    /** Thrown when an attempt outlives its deadline; reported like any other timeout. */
    static final class AttemptTimeoutException extends SocketTimeoutException {
        AttemptTimeoutException(String message) {
            super(message);
        }
    }

    private final long endNanos;
    private final Duration limit;
    private volatile ScheduledFuture<?> watch;

    private AttemptDeadline(Duration limit) {
        this.limit = limit;
        this.endNanos = System.nanoTime() + limit.toNanos();
    }

    /**
     * A deadline {@code limit} from now that runs {@code onExpiry} (dropping the connection) on {@code timer} when it
     * passes.
     */
    static AttemptDeadline start(ScheduledExecutorService timer, Duration limit, Runnable onExpiry) {
        AttemptDeadline d = new AttemptDeadline(limit);
        d.watch = timer.schedule(onExpiry, limit.toNanos(), TimeUnit.NANOSECONDS);
        return d;
    }

    boolean passed() {
        return System.nanoTime() - endNanos >= 0;
    }

    /** Throws once the deadline has passed. */
    void check() throws AttemptTimeoutException {
        if (passed()) {
            throw new AttemptTimeoutException("the attempt took longer than attempttimeout (" + limit.toMillis() / 1000.0
                    + " s)");
        }
    }

    void cancel() {
        ScheduledFuture<?> w = watch;
        if (w != null) {
            w.cancel(false);
        }
    }
}
