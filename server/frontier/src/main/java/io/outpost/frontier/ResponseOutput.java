package io.outpost.frontier;

import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The response body, held in memory until it is complete (then sent with Content-Length) or until it outgrows
 * the buffer or a keepalive must go out (then the headers are committed with {@code Connection: close} and the
 * rest streams; the end of the body is the end of the connection). Never chunked: frontier_client cannot read
 * chunked transfer encoding. All writes are synchronised so the keepalive timer and the request thread never
 * interleave.
 */
final class ResponseOutput extends OutputStream {
    private final HttpServletResponse response;
    private final int limit;
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
        if (len + n > limit) {
            commit();
            direct.write(b, off, n);
            return;
        }
        if (len + n > buf.length) {
            buf = Arrays.copyOf(buf, Math.min(Math.max(buf.length * 2, len + n), Math.max(limit, len + n)));
        }
        System.arraycopy(b, off, buf, len, n);
        len += n;
    }

    /** Sends the headers and everything buffered, without a Content-Length. */
    synchronized void commit() throws IOException {
        if (direct != null) {
            return;
        }
        // Without a length, Tomcat would chunk an HTTP/1.1 response unless the connection is to be closed.
        response.setHeader("Connection", "close");
        direct = response.getOutputStream();
        direct.write(buf, 0, len);
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
        if (direct == null) {
            response.setContentLength(len);
            OutputStream out = response.getOutputStream();
            out.write(buf, 0, len);
            out.flush();
        } else {
            direct.flush();
        }
    }

    /** Discards buffered bytes (e.g. for 304/503 without body). Only before commit. */
    synchronized void discard() {
        if (direct == null) {
            len = 0;
        }
    }
}
