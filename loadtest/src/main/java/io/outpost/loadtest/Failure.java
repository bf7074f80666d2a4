package io.outpost.loadtest;

import java.net.ConnectException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;

/** Failure classes: every failed request is counted in exactly one of them, none is dropped. */
public enum Failure {
    CONNECT_REFUSED("connection refused or connect time-out"),
    TIMEOUT("request or statement time-out"),
    HTTP_4XX("HTTP 4xx answer"),
    HTTP_5XX("HTTP 5xx answer (e.g. 503 from the service, 502/504 from Squid)"),
    HTTP_OTHER("unexpected HTTP status (1xx/3xx)"),
    CORRUPT("truncated or corrupt answer (wire-format check failed)"),
    WRONG_ROWS("answer with a row count other than the workload's"),
    IO("other I/O error (connection reset, closed early)"),
    DATABASE("JDBC / store error"),
    DEADLINE("snapshot not complete by the end of the run"),
    OTHER("anything else");

    private final String description;

    Failure(String description) {
        this.description = description;
    }

    public String description() {
        return description;
    }

    /** The class of a failed request's exception. */
    public static Failure classify(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof FailedRequest f) {
                return f.failure();
            }
            if (c instanceof HttpConnectTimeoutException || c instanceof ConnectException) {
                return CONNECT_REFUSED;
            }
            if (c instanceof HttpTimeoutException || c instanceof SQLTimeoutException
                    || c instanceof java.util.concurrent.TimeoutException) {
                return TIMEOUT;
            }
            if (c instanceof SQLException || c instanceof io.outpost.store.StoreException) {
                return DATABASE;
            }
        }
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof java.io.IOException) {
                return IO;
            }
        }
        return OTHER;
    }

    /** The class of an HTTP status other than 200. */
    public static Failure ofStatus(int status) {
        if (status >= 500) {
            return HTTP_5XX;
        }
        if (status >= 400) {
            return HTTP_4XX;
        }
        return HTTP_OTHER;
    }

    /** A request that completed but whose answer is wrong. */
    public static final class FailedRequest extends RuntimeException {
        private final Failure failure;

        public FailedRequest(Failure failure, String message) {
            super(message);
            this.failure = failure;
        }

        public Failure failure() {
            return failure;
        }
    }
}
