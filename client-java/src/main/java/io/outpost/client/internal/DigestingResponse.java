package io.outpost.client.internal;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;

/**
 * A response whose body is hashed (SHA-256) as the handler reads it, so that a whole answer is verified without
 * being held twice: the handler decodes it as it arrives, and its result is used only once the signature verifies.
 * The handler's close of the body leaves the rest of it to {@link #sha256()}, which reads it to the end first.
 */
final class DigestingResponse implements Response {
    private final Response inner;
    private final MessageDigest digest = AnswerVerifier.bodyDigest();
    private final InputStream body;

    DigestingResponse(Response inner) {
        this.inner = inner;
        this.body = new FilterInputStream(inner.body()) {
            @Override
            public int read() throws IOException {
                int b = in.read();
                if (b >= 0) {
                    digest.update((byte) b);
                }
                return b;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                int n = in.read(b, off, len);
                if (n > 0) {
                    digest.update(b, off, n);
                }
                return n;
            }

            @Override
            public long skip(long n) throws IOException {
                return BoundedBody.skipByReading(this, n);
            }

            @Override
            public void close() {
                // the rest is read by sha256(); the connection is closed with the response
            }
        };
    }

    /** Reads what is left of the body (within the transport's limits) and returns the SHA-256 of all of it. */
    byte[] sha256() throws IOException {
        byte[] buf = new byte[64 << 10];
        while (body.read(buf, 0, buf.length) >= 0) {
            // hashed by the stream
        }
        return digest.digest();
    }

    @Override
    public int status() {
        return inner.status();
    }

    @Override
    public String header(String name) {
        return inner.header(name);
    }

    @Override
    public String target() {
        return inner.target();
    }

    @Override
    public long contentLength() {
        return inner.contentLength();
    }

    @Override
    public InputStream body() {
        return body;
    }

    @Override
    public void close() {
        inner.close();
    }

    @Override
    public void abort() {
        inner.abort();
    }
}
