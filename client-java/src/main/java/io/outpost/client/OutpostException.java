package io.outpost.client;

/**
 * The one checked exception of the client. {@link #kind()} says what went wrong; when the request was tried on
 * several routes, every failed attempt is attached as a suppressed exception, in order.
 */
public class OutpostException extends Exception {

    /** What went wrong, from the caller's point of view. */
    public enum Kind {
        /** 404: no such folder, channel, tag or node. Never retried. */
        NOT_FOUND,
        /** Any other 4xx: the server refused the request as it is. Never retried. */
        REJECTED,
        /** No server could be reached, or every one answered 5xx. */
        UNAVAILABLE,
        /** Connecting or reading took longer than the configured timeout. */
        TIMEOUT,
        /** The answer was corrupt or truncated (magic, size, CRC-32, row count) on every route tried. */
        CORRUPT,
        /** Caches kept serving an answer older than the server allows, even after a hard refresh. */
        STALE,
        /**
         * With security=sig: the answer's signature was missing, did not verify, or named a key the configuration
         * does not have.
         */
        UNSIGNED,
        /** The answer decoded but is not what was asked for (wrong kind, unexpected columns). */
        PROTOCOL,
        /** The calling thread was interrupted. */
        INTERRUPTED
    }

    private final Kind kind;
    private final int httpStatus;

    public OutpostException(Kind kind, String message) {
        this(kind, message, 0, null);
    }

    public OutpostException(Kind kind, String message, int httpStatus, Throwable cause) {
        super(message, cause);
        this.kind = kind;
        this.httpStatus = httpStatus;
    }

    public Kind kind() {
        return kind;
    }

    /** The HTTP status that caused this, or 0 if there was no HTTP answer. */
    public int httpStatus() {
        return httpStatus;
    }

    @Override
    public String getMessage() {
        return kind + ": " + super.getMessage();
    }
}
