package io.outpost.frontier.encode;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * The base64 text of one streamed answer on its way to the response stream. It comes in runs of lines and single
 * newlines ({@link MimeLines}; the JDK's MIME stream, used before, wrote each 76-character line and its newline
 * apart); gathered here, it reaches the servlet's stream in 32 KB writes instead of many small calls. {@link #close} passes on what
 * is left and leaves the response stream open.
 *
 * <p>With a holding limit, the whole text is held instead and its pieces are passed on at close by reference
 * ({@link SharedWrites}): the response then goes out with its length on a connection that stays open, as an answer
 * compressed whole does. A text that outgrows the limit is passed on as it comes from then on (the response then
 * streams and closes its connection), so memory stays bounded. Asked to, it joins a text held whole into one array
 * at close and keeps it ({@link #wholeText}), for an answer sent again as it is.
 */
final class AnswerText extends OutputStream {
    private static final int PIECE = 32 * 1024;
    private final OutputStream sink;
    private byte[] buf = new byte[PIECE];
    private int pos;
    /** Hold up to this many bytes; 0 once streaming. */
    private int holdUpTo;
    /** Full pieces held before {@link #buf}, and their length. */
    private final List<byte[]> held = new ArrayList<>();
    private int heldBytes;
    /** Whether a text held whole is joined into one array and kept. */
    private final boolean joined;
    private byte[] wholeText;

    AnswerText(OutputStream sink) {
        this(sink, 0, false);
    }

    /** @param holdUpTo the longest text held whole; 0: pass it on in 32 KB writes */
    AnswerText(OutputStream sink, int holdUpTo) {
        this(sink, holdUpTo, false);
    }

    /**
     * @param holdUpTo the longest text held whole; 0: pass it on in 32 KB writes
     * @param joined   a text held whole is passed on as one array, kept for {@link #wholeText}
     */
    AnswerText(OutputStream sink, int holdUpTo, boolean joined) {
        this.sink = sink;
        this.holdUpTo = holdUpTo;
        this.joined = joined;
    }

    /** After close: the whole text, when it was held whole and joined; else null. */
    byte[] wholeText() {
        return wholeText;
    }

    @Override
    public void write(int b) throws IOException {
        if (pos == buf.length) {
            makeRoom(1);
        }
        buf[pos++] = (byte) b; // the encoder's final padding comes byte by byte
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        while (len > 0) {
            if (pos == buf.length) {
                makeRoom(len);
            }
            if (holdUpTo == 0 && pos == 0 && len >= buf.length) {
                sink.write(b, off, len);
                return;
            }
            int n = Math.min(len, buf.length - pos);
            System.arraycopy(b, off, buf, pos, n);
            pos += n;
            off += n;
            len -= n;
        }
    }

    /** The full buffer is held as a piece, or (past the limit, or not holding) passed on with what was held. */
    private void makeRoom(int more) throws IOException {
        if (holdUpTo > 0 && (long) heldBytes + pos + more <= holdUpTo) {
            held.add(buf);
            heldBytes += pos;
            buf = new byte[PIECE];
            pos = 0;
            return;
        }
        holdUpTo = 0;
        drain();
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
        if (holdUpTo > 0 && heldBytes + pos > 0 && joined) {
            byte[] text = new byte[heldBytes + pos];
            int at = 0;
            for (byte[] piece : held) {
                System.arraycopy(piece, 0, text, at, piece.length);
                at += piece.length;
            }
            System.arraycopy(buf, 0, text, at, pos);
            SharedWrites.write(sink, text);
            wholeText = text;
            held.clear();
            heldBytes = 0;
            pos = 0;
            buf = null;
            return;
        }
        if (holdUpTo > 0 && heldBytes + pos > 0) {
            for (byte[] piece : held) {
                SharedWrites.write(sink, piece);
            }
            SharedWrites.write(sink, pos == buf.length ? buf : java.util.Arrays.copyOf(buf, pos));
            held.clear();
            heldBytes = 0;
            pos = 0;
            buf = null; // handed on
            return;
        }
        drain();
    }

    private void drain() throws IOException {
        for (byte[] piece : held) {
            sink.write(piece, 0, piece.length);
        }
        held.clear();
        heldBytes = 0;
        if (pos > 0) {
            sink.write(buf, 0, pos);
            pos = 0;
        }
    }
}
