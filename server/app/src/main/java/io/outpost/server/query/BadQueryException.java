package io.outpost.server.query;

/** A URL that cannot mean any query; the message says what was wrong. Answered with 400 (or 414). */
public class BadQueryException extends RuntimeException {
    private final int status;

    public BadQueryException(String message) {
        this(400, message);
    }

    public BadQueryException(int status, String message) {
        super(message);
        this.status = status;
    }

    public int status() {
        return status;
    }
}
