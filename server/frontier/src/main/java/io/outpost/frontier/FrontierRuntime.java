package io.outpost.frontier;

import io.outpost.frontier.sql.SqlParser;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * The threads the Frontier servlets share: the timer that sends keepalives, the pool that compresses answers
 * beside the request threads, and the threads the SQL parser runs on (so that a parse can be timed out). Whoever
 * creates it closes it (the application context, or a servlet built without one, when it is destroyed); closing
 * stops them all.
 */
public final class FrontierRuntime implements AutoCloseable {
    private final ScheduledExecutorService keepaliveTimer;
    private final ExecutorService compressor;
    private final ExecutorService parserThreads = SqlParser.newThreads();
    private final SqlParser parser = new SqlParser(parserThreads);

    /** A compression pool of one thread per core. */
    public FrontierRuntime() {
        this(Runtime.getRuntime().availableProcessors());
    }

    public FrontierRuntime(int compressorThreads) {
        this.keepaliveTimer = Executors.newSingleThreadScheduledExecutor(daemon("frontier-keepalive"));
        this.compressor = Executors.newFixedThreadPool(compressorThreads, daemon("frontier-deflate"));
    }

    // daemon threads: a runtime someone forgot to close never keeps the JVM alive
    private static ThreadFactory daemon(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }

    ScheduledExecutorService keepaliveTimer() {
        return keepaliveTimer;
    }

    /** Deflates payload chunks while the request thread reads the next rows (BlobEncoder). */
    Executor compressor() {
        return compressor;
    }

    /** Parses Frontier SQL, each statement once, with a time limit. */
    SqlParser parser() {
        return parser;
    }

    /** Stops the keepalives at once and lets compressions under way finish (for a few seconds at most). */
    @Override
    public void close() {
        keepaliveTimer.shutdownNow();
        parserThreads.shutdownNow();
        compressor.shutdown();
        try {
            if (!compressor.awaitTermination(5, TimeUnit.SECONDS)) {
                compressor.shutdownNow();
            }
        } catch (InterruptedException e) {
            compressor.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }

    boolean isClosed() {
        return keepaliveTimer.isShutdown() && compressor.isShutdown() && parserThreads.isShutdown();
    }
}
