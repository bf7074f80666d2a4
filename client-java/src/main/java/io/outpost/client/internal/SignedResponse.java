package io.outpost.client.internal;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * A response whose body was read whole so that its signature can be checked before any of it is decoded (with
 * security=sig, a streamed answer is buffered too: rows must not reach the caller before the answer is trusted).
 */
final class SignedResponse implements Response {
    private final Response head;
    private final byte[] body;

    private SignedResponse(Response head, byte[] body) {
        this.head = head;
        this.body = body;
    }

    /** Reads the body of {@code r} to its end and closes it (its connection goes back to the pool). */
    static SignedResponse read(Response r) throws IOException {
        byte[] body;
        try (InputStream in = r.body()) {
            body = in.readAllBytes();
        }
        r.close();
        return new SignedResponse(r, body);
    }

    byte[] bytes() {
        return body;
    }

    @Override
    public int status() {
        return head.status();
    }

    @Override
    public String header(String name) {
        return head.header(name);
    }

    @Override
    public String target() {
        return head.target();
    }

    @Override
    public long contentLength() {
        return body.length;
    }

    @Override
    public InputStream body() {
        return new ByteArrayInputStream(body);
    }

    @Override
    public void close() {
        // the connection was given back when the body had been read
    }

    @Override
    public void abort() {
        // nothing left to drop
    }
}
