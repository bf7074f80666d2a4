package io.outpost.frontier;

import io.outpost.frontier.encode.SharedWrites;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The response body, held in memory until it is complete (then sent with Content-Length) or until it outgrows
 * the buffer or a keepalive must go out (then the headers are committed with {@code Connection: close} and the
 * rest streams; the end of the body is the end of the connection). Never chunked: frontier_client cannot read
 * chunked transfer encoding. All writes are synchronised so the keepalive timer and the request thread never
 * interleave.
 *
 * <p>Text that is already in memory and never changes (a kept answer, or an answer the encoder held and compressed
 * whole: {@link #writeShared}) is held by reference, not copied, and does not count against the buffer's limit: such
 * an answer of any size goes out with its length, and the connection stays open.
 */
final class ResponseOutput extends OutputStream implements SharedWrites {
    private final HttpServletResponse response;
    private final int limit;
    /** Complete parts before {@link #buf}: earlier buffers and shared arrays, in order. */
    private final List<ByteBuffer> parts = new ArrayList<>();
    private long partsLength;
    /** Bytes copied into buffers so far (what the limit bounds). */
    private int copied;
    private byte[] buf = new byte[8192];
    private int len;
    private OutputStream direct;

    ResponseOutput(HttpServletResponse response, int limit) {
        this.response = response;
        this.limit = limit;
    }

    synchronized boolean isCommitted() {
        return direct != null;
    }

    synchronized void print(String s) throws IOException {
        byte[] b = s.getBytes(StandardCharsets.US_ASCII);
        write(b, 0, b.length);
    }

    @Override
    public synchronized void write(int b) throws IOException {
        write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public synchronized void write(byte[] b, int off, int n) throws IOException {
        if (direct != null) {
            direct.write(b, off, n);
            return;
        }
        if (copied + n > limit) {
            commit();
            direct.write(b, off, n);
            return;
        }
        if (len + n > buf.length) {
            buf = Arrays.copyOf(buf, Math.min(Math.max(buf.length * 2, len + n), Math.max(limit, len + n)));
        }
        System.arraycopy(b, off, buf, len, n);
        len += n;
        copied += n;
    }

    /** Appends {@code b}, which nobody changes any more, by reference (see the class comment). */
    @Override
    public synchronized void writeShared(byte[] b) throws IOException {
        if (direct != null) {
            direct.write(b);
            return;
        }
        if (len > 0) {
            parts.add(ByteBuffer.wrap(buf, 0, len));
            partsLength += len;
            buf = new byte[8192];
            len = 0;
        }
        parts.add(ByteBuffer.wrap(b));
        partsLength += b.length;
    }

    /** Sends the headers and everything buffered, without a Content-Length. */
    synchronized void commit() throws IOException {
        if (direct != null) {
            return;
        }
        // Without a length, Tomcat would chunk an HTTP/1.1 response unless the connection is to be closed.
        response.setHeader("Connection", "close");
        direct = response.getOutputStream();
        writeParts(direct);
        direct.flush();
        buf = null;
    }

    /** Writes a keepalive and makes sure it leaves now (this commits the response). */
    synchronized void keepalive() throws IOException {
        print("\n   <keepalive />");
        commit();
        direct.flush();
    }

    /** Completes the response: with Content-Length if nothing was committed yet. */
    synchronized void finish() throws IOException {
        if (direct != null) {
            direct.flush();
            return;
        }
        long total = partsLength + len;
        response.setContentLengthLong(total);
        OutputStream out = response.getOutputStream();
        writeParts(out);
        out.flush();
    }

    private void writeParts(OutputStream out) throws IOException {
        for (ByteBuffer p : parts) {
            out.write(p.array(), p.arrayOffset() + p.position(), p.remaining());
        }
        parts.clear();
        partsLength = 0;
        out.write(buf, 0, len);
    }

    /** Discards buffered bytes (e.g. for 304/503 without body). Only before commit. */
    synchronized void discard() {
        if (direct == null) {
            parts.clear();
            partsLength = 0;
            len = 0;
            copied = 0;
        }
    }
}
