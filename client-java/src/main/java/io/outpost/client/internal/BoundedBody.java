package io.outpost.client.internal;

import io.outpost.wire.CorruptAnswerException;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * An answer body read within the attempt's limits: at most {@code maxBytes} (more is refused like a corrupt answer,
 * so an endless body ends), and nothing after the attempt's deadline (a server that drips a byte at a time never
 * trips the read timeout, only this).
 */
final class BoundedBody extends FilterInputStream {
    private final long maxBytes;
    private final AttemptDeadline deadline;
    private long count;

    BoundedBody(InputStream in, long maxBytes, AttemptDeadline deadline) {
        super(in);
        this.maxBytes = maxBytes;
        this.deadline = deadline;
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0] & 0xFF;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        deadline.check();
        int n;
        try {
            n = super.read(b, off, (int) Math.min(len, maxBytes - count + 1));
        } catch (IOException e) {
            deadline.check(); // a read broken by the deadline reports the deadline
            throw e;
        }
        if (n > 0) {
            count += n;
            if (count > maxBytes) {
                throw new CorruptAnswerException("answer larger than maxanswerbytes (" + maxBytes + " bytes)");
            }
        }
        return n;
    }

    @Override
    public long skip(long n) throws IOException {
        return skipByReading(this, n);
    }

    /** Skips through {@code in}'s own read, so whatever it counts or hashes sees the skipped bytes too. */
    static long skipByReading(java.io.InputStream in, long n) throws IOException {
        byte[] buf = new byte[(int) Math.min(8192, Math.max(0, n))];
        long done = 0;
        while (done < n) {
            int r = in.read(buf, 0, (int) Math.min(buf.length, n - done));
            if (r < 0) {
                break;
            }
            done += r;
        }
        return done;
    }
}
