package io.outpost.server.write;

/** A write refused before it reached the store (authorization, idempotency, body), with its HTTP status. */
public class WriteRefused extends RuntimeException {
    private final int status;
    private final String title;

    public WriteRefused(int status, String title, String detail) {
        super(detail);
        this.status = status;
        this.title = title;
    }

    public int status() {
        return status;
    }

    public String title() {
        return title;
    }
}
