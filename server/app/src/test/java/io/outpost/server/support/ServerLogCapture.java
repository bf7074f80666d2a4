package io.outpost.server.support;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.slf4j.LoggerFactory;

/** The service's warnings and errors (every logger) while open, each with the exception logged with it. */
public final class ServerLogCapture implements AutoCloseable {
    private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

    /** One logged event: its message and, if one was logged with it, the exception's class name. */
    public record Line(String message, String exception) {
    }

    public ServerLogCapture() {
        appender.start();
        root.addAppender(appender);
    }

    /** The warnings and errors so far (appenders append while holding their own lock). */
    public List<Line> lines() {
        synchronized (appender) {
            return appender.list.stream().filter(e -> e.getLevel().isGreaterOrEqual(Level.WARN))
                    .map(e -> new Line(e.getFormattedMessage(),
                            e.getThrowableProxy() == null ? null : e.getThrowableProxy().getClassName()))
                    .toList();
        }
    }

    @Override
    public void close() {
        root.detachAppender(appender);
    }
}
