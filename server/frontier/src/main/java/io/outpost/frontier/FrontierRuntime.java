package io.outpost.frontier;

import io.outpost.frontier.sql.SqlParser;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;

/**
 * The threads the Frontier servlets share: the timer that sends keepalives and the threads the SQL parser runs on
 * (so that a parse can be timed out). Whoever creates it closes it (the application context, or a servlet built
 * without one, when it is destroyed); closing stops them all.
 */
public final class FrontierRuntime implements AutoCloseable {
    private final ScheduledExecutorService keepaliveTimer;
    private final ExecutorService parserThreads = SqlParser.newThreads();
    private final SqlParser parser = new SqlParser(parserThreads);

    public FrontierRuntime() {
        this.keepaliveTimer = Executors.newSingleThreadScheduledExecutor(daemon("frontier-keepalive"));
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

    /** Parses Frontier SQL, each statement once, with a time limit. */
    SqlParser parser() {
        return parser;
    }

    /** Stops the keepalives and the parser threads at once. */
    @Override
    public void close() {
        keepaliveTimer.shutdownNow();
        parserThreads.shutdownNow();
    }

    boolean isClosed() {
        return keepaliveTimer.isShutdown() && parserThreads.isShutdown();
    }
}
