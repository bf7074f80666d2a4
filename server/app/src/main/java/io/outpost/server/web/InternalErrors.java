package io.outpost.server.web;

import io.outpost.store.StoreException;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a client reads when something failed inside the service: fixed words and an id, never an exception's class,
 * message or stack trace (they may name tables, files, hosts or versions). The same id is written in the server log
 * with the whole exception, so an operator finds it from a user's report.
 */
public final class InternalErrors {
    private static final Logger log = LoggerFactory.getLogger(InternalErrors.class);

    private InternalErrors() {
    }

    /** An unexpected failure: logged with its stack trace under a fresh id, which the returned words name. */
    public static String logged(String request, Throwable e) {
        String id = newId();
        log.error("id={} {} failed", id, request, e);
        return "internal error; the service logged it as id=" + id;
    }

    /**
     * A store failure as the client reads it: its message, unless that carries the words of its cause (the
     * database's, e.g. "database error: " + the driver's message). Then the client reads only the store's own words
     * before them and the id under which the whole failure is logged.
     */
    public static String clientText(StoreException e, String request) {
        Throwable cause = e.getCause();
        String causeWords = cause == null || cause.getMessage() == null ? "" : cause.getMessage().strip();
        int at = causeWords.isEmpty() ? -1 : e.getMessage().indexOf(causeWords);
        if (at < 0) {
            return e.getMessage();
        }
        String id = newId();
        log.warn("id={} {} failed: {}", id, request, e.getMessage(), e);
        String own = e.getMessage().substring(0, at).replaceFirst("[\\s:(\\[]+$", "");
        return (own.isEmpty() ? "the database failed" : own) + "; the service logged the cause as id=" + id;
    }

    /** 12 hex digits: unique enough to find one line in a service's logs, short enough to read out. */
    private static String newId() {
        return HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong()).substring(4);
    }
}
