package io.outpost.client.internal;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A response whose body was read whole so that its signature can be checked before any of it is decoded (with
 * security=sig, a streamed answer is buffered too: rows must not reach the caller before the answer is trusted).
 * The body is held once, in chunks no larger than it; its SHA-256 is taken over those chunks, no copy is made.
 * The transport's body stream bounds how much is read ({@code maxanswerbytes}).
 */
final class SignedResponse implements Response {
    private static final int CHUNK = 1 << 20;

    private final Response head;
    private final List<byte[]> chunks;
    private final long length;
    private final byte[] sha256;

    private SignedResponse(Response head, List<byte[]> chunks, long length, byte[] sha256) {
        this.head = head;
        this.chunks = chunks;
        this.length = length;
        this.sha256 = sha256;
    }

    /** Reads the body of {@code r} to its end and closes it (its connection goes back to the pool). */
    static SignedResponse read(Response r) throws IOException {
        List<byte[]> chunks = new ArrayList<>();
        MessageDigest digest = AnswerVerifier.bodyDigest();
        long length = 0;
        long announced = r.contentLength();
        try (InputStream in = r.body()) {
            while (true) {
                int size = announced >= 0 ? (int) Math.min(CHUNK, Math.max(1, announced - length)) : CHUNK;
                byte[] chunk = new byte[size];
                int n = in.readNBytes(chunk, 0, size);
                if (n > 0) {
                    digest.update(chunk, 0, n);
                    chunks.add(n == size ? chunk : java.util.Arrays.copyOf(chunk, n));
                    length += n;
                }
                if (n < size) {
                    break;
                }
            }
        }
        if (announced >= 0 && length < announced) {
            throw new io.outpost.wire.CorruptAnswerException("truncated answer: " + length + " of " + announced
                    + " bytes (Content-Length)");
        }
        r.close();
        return new SignedResponse(r, chunks, length, digest.digest());
    }

    /** The SHA-256 of the body. */
    byte[] sha256() {
        return sha256.clone();
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
        return length;
    }

    @Override
    public InputStream body() {
        List<InputStream> parts = new ArrayList<>(chunks.size());
        chunks.forEach(c -> parts.add(new ByteArrayInputStream(c)));
        return new SequenceInputStream(Collections.enumeration(parts));
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
