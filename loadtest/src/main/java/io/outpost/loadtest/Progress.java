package io.outpost.loadtest;

import java.io.PrintStream;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/** A one-line progress display on stderr, refreshed every second while a step runs (off with --quiet). */
public final class Progress implements AutoCloseable {
    private final ScheduledExecutorService timer;
    private final PrintStream out;
    private final boolean tty;

    public Progress(boolean enabled, String label, StepRecorder rec, Supplier<String> extra) {
        this.out = System.err;
        this.tty = System.console() != null;
        if (!enabled) {
            timer = null;
            return;
        }
        long start = System.nanoTime();
        timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "progress");
            t.setDaemon(true);
            return t;
        });
        timer.scheduleAtFixedRate(() -> {
            double s = (System.nanoTime() - start) / 1e9;
            String line = String.format(Locale.ROOT, "  %-38s %6.1fs %8d ok %5d failed %9.2f MB %8.1f req/s %s",
                    label, s, rec.ok(), rec.failed(), rec.bytes() / 1e6, rec.ok() / Math.max(s, 1e-3), extra.get());
            if (tty) {
                out.print("\r" + line);
            } else {
                out.println(line);
            }
            out.flush();
        }, 1, tty ? 1 : 5, TimeUnit.SECONDS);
    }

    @Override
    public void close() {
        if (timer != null) {
            timer.shutdownNow();
            if (tty) {
                out.println();
            }
        }
    }
}
