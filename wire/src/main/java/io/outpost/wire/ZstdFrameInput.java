package io.outpost.wire;

import com.github.luben.zstd.ZstdDecompressCtx;
import com.github.luben.zstd.ZstdException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The content of a codec-2 body: exactly one zstd frame (RFC 8878), decompressed incrementally through zstd-jni's
 * streaming API ({@code ZSTD_decompressStream}) straight into the reader's buffer, never the whole content at once.
 * Unlike {@code ZstdInputStream}, which would go on into a second concatenated or skippable frame, this stream ends
 * at the end of the first frame; {@link #leftover()} then tells how many body bytes follow it. A body that ends
 * inside the frame, or bytes the decoder rejects, are a {@link CorruptAnswerException}. Decompression contexts and
 * input buffers are pooled: creating them per answer cost as much as decompressing a 100 KB answer.
 */
final class ZstdFrameInput extends InputStream {
    private static final int IN = 1 << 16;
    private static final int POOL_LIMIT = Math.max(4, 2 * Runtime.getRuntime().availableProcessors());
    private static final ConcurrentLinkedQueue<Resources> POOL = new ConcurrentLinkedQueue<>();
    private static final AtomicInteger POOLED = new AtomicInteger();

    /** A context between frames and an input buffer. */
    private static final class Resources {
        final ZstdDecompressCtx ctx = new ZstdDecompressCtx();
        final byte[] inBytes = new byte[IN];
    }

    private final InputStream body;
    private final Resources res;
    private final ByteBuffer in;
    private boolean frameDone;
    private boolean bodyEnded;
    private boolean closed;

    /** @param body the compressed body, ending (-1) at body_len */
    ZstdFrameInput(InputStream body) {
        this.body = body;
        Resources r = POOL.poll();
        if (r != null) {
            POOLED.decrementAndGet();
        } else {
            r = new Resources();
        }
        this.res = r;
        this.in = ByteBuffer.wrap(r.inBytes).limit(0);
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        while (!frameDone) {
            ByteBuffer dst = ByteBuffer.wrap(b, off, len);
            try {
                // Also called with no input: the decoder may still hold output of a block larger than dst.
                frameDone = res.ctx.decompressByteBufferStream(dst, in);
            } catch (ZstdException e) {
                throw new CorruptAnswerException("body is not a valid zstd frame: " + e.getMessage(), e);
            }
            int n = dst.position() - off;
            if (n > 0) {
                return n;
            }
            if (!frameDone && !in.hasRemaining()) {
                refill();
            }
        }
        return -1;
    }

    private void refill() throws IOException {
        if (bodyEnded) {
            throw new CorruptAnswerException("truncated body: the zstd frame does not end within body_len");
        }
        int r = body.read(res.inBytes, 0, IN);
        if (r < 0) {
            bodyEnded = true;
            throw new CorruptAnswerException("truncated body: the zstd frame does not end within body_len");
        }
        in.limit(r).position(0);
    }

    /** True once the whole frame was decoded and all its content read. */
    boolean frameFinished() {
        return frameDone;
    }

    /** Input bytes read past the end of the frame but not consumed by it (the body may hold more, unread). */
    int leftover() {
        return in.remaining();
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        // Only a context at a frame boundary may decode the next answer; any other is freed.
        if (frameDone && POOLED.incrementAndGet() <= POOL_LIMIT) {
            POOL.offer(res);
        } else {
            if (frameDone) {
                POOLED.decrementAndGet();
            }
            res.ctx.close();
        }
    }
}
