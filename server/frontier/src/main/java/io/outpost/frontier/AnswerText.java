package io.outpost.frontier;

import java.io.IOException;
import java.io.OutputStream;

/**
 * The base64 text of one streamed answer on its way to the response stream. The JDK's MIME encoder writes each
 * 76-character line and its newline apart; gathered here, they reach the servlet's stream in 32 KB writes instead
 * of two calls per line (an eighth of a computed answer's CPU went to those calls). {@link #close} passes on what
 * is left and leaves the response stream open.
 */
final class AnswerText extends OutputStream {
    private final OutputStream sink;
    private final byte[] buf = new byte[32 * 1024];
    private int pos;

    AnswerText(OutputStream sink) {
        this.sink = sink;
    }

    @Override
    public void write(int b) throws IOException {
        if (pos == buf.length) {
            drain();
        }
        buf[pos++] = (byte) b; // the encoder's final padding comes byte by byte
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        if (len > buf.length - pos) {
            drain();
            if (len >= buf.length) {
                sink.write(b, off, len);
                return;
            }
        }
        System.arraycopy(b, off, buf, pos, len);
        pos += len;
    }

    /** Passes the gathered text on; the response stream itself is flushed by the servlet. */
    @Override
    public void flush() throws IOException {
        drain();
    }

    @Override
    public void close() throws IOException {
        drain();
    }

    private void drain() throws IOException {
        if (pos > 0) {
            sink.write(buf, 0, pos);
            pos = 0;
        }
    }
}
