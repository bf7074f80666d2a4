package io.outpost.frontier;

import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;

/**
 * The base64 text of one streamed answer on its way to the response stream. The JDK's MIME encoder writes each
 * 76-character line and its newline apart; gathered here, they reach the servlet's stream in 32 KB writes instead
 * of two calls per line (an eighth of a computed answer's CPU went to those calls). {@link #close} passes on what
 * is left and leaves the response stream open.
 *
 * <p>With a holding limit, the whole text is held instead and passed on at close as one array by reference
 * ({@link SharedWrites}): the response then goes out with its length on a connection that stays open, as an answer
 * compressed whole does. A text that outgrows the limit is passed on as it comes from then on (the response then
 * streams and closes its connection), so memory stays bounded.
 */
final class AnswerText extends OutputStream {
    private static final int PIECE = 32 * 1024;
    private final OutputStream sink;
    private byte[] buf = new byte[PIECE];
    private int pos;
    /** Hold up to this many bytes; 0 once streaming. */
    private int holdUpTo;

    AnswerText(OutputStream sink) {
        this(sink, 0);
    }

    /** @param holdUpTo the longest text held whole; 0: pass it on in 32 KB writes */
    AnswerText(OutputStream sink, int holdUpTo) {
        this.sink = sink;
        this.holdUpTo = holdUpTo;
    }

    @Override
    public void write(int b) throws IOException {
        if (pos == buf.length && !grow(1)) {
            drain();
        }
        buf[pos++] = (byte) b; // the encoder's final padding comes byte by byte
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        if (len > buf.length - pos && !grow(len)) {
            drain();
            if (len >= buf.length) {
                sink.write(b, off, len);
                return;
            }
        }
        System.arraycopy(b, off, buf, pos, len);
        pos += len;
    }

    /** Makes room for {@code len} more bytes while holding; false (and streaming from now on) past the limit. */
    private boolean grow(int len) {
        if (holdUpTo == 0) {
            return false;
        }
        if ((long) pos + len > holdUpTo) {
            holdUpTo = 0;
            return false;
        }
        buf = Arrays.copyOf(buf, (int) Math.min(holdUpTo, Math.max(2L * buf.length, (long) pos + len)));
        return true;
    }

    /** Passes the gathered text on unless it is held whole; the response stream itself is flushed by the servlet. */
    @Override
    public void flush() throws IOException {
        if (holdUpTo == 0) {
            drain();
        }
    }

    @Override
    public void close() throws IOException {
        if (holdUpTo > 0 && pos > 0) {
            SharedWrites.write(sink, Arrays.copyOf(buf, pos));
            pos = 0;
            return;
        }
        drain();
    }

    private void drain() throws IOException {
        if (pos > 0) {
            sink.write(buf, 0, pos);
            pos = 0;
        }
    }
}
