package io.outpost.server.support;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.slf4j.LoggerFactory;

/**
 * The access log's lines while open, at INFO whatever services started earlier in this JVM set the level to (they
 * share one logback context). Lines are written once an answer is out, so a client may see the answer first:
 * {@link #awaitLine} waits for the line, for at most 10 s.
 */
public final class AccessLogCapture implements AutoCloseable {
    private final Logger access = (Logger) LoggerFactory.getLogger("outpost.access");
    private final Level level = access.getLevel();
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

    public AccessLogCapture() {
        access.setLevel(Level.INFO);
        appender.start();
        access.addAppender(appender);
    }

    /** The lines so far (appenders append while holding their own lock). */
    public List<String> lines() {
        synchronized (appender) {
            return appender.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
        }
    }

    /** The lines once one contains {@code text}, or after 10 s without it. */
    public List<String> awaitLine(String text) {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (lines().stream().noneMatch(l -> l.contains(text)) && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        return lines();
    }

    @Override
    public void close() {
        access.detachAppender(appender);
        access.setLevel(level);
    }
}
