package io.outpost.client.internal;

import com.github.luben.zstd.ZstdDecompressCtx;
import com.github.luben.zstd.ZstdException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;

/**
 * The content of a codec-2 body: exactly one zstd frame (RFC 8878), decompressed incrementally through zstd-jni's
 * streaming API ({@code ZSTD_decompressStream}) into a bounded output buffer, never the whole content at once.
 * Unlike {@code ZstdInputStream}, which would go on into a second concatenated or skippable frame, this stream ends
 * at the end of the first frame; {@link #leftover()} then tells how many body bytes follow it. A body that ends
 * inside the frame, or bytes the decoder rejects, are a {@link CorruptAnswerException}.
 */
final class ZstdFrameInput extends InputStream {
    private static final int IN = 1 << 16;
    private static final int OUT = 1 << 17; // ZSTD_DStreamOutSize(): one full block

    private final InputStream body;
    private final ZstdDecompressCtx ctx = new ZstdDecompressCtx();
    private final byte[] inBytes = new byte[IN];
    private final ByteBuffer in = ByteBuffer.wrap(inBytes).limit(0);
    private final ByteBuffer out = ByteBuffer.allocate(OUT).limit(0);
    private boolean frameDone;
    private boolean bodyEnded;
    private boolean closed;

    /** @param body the compressed body, ending (-1) at body_len */
    ZstdFrameInput(InputStream body) {
        this.body = body;
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
        while (!out.hasRemaining()) {
            if (frameDone) {
                return -1;
            }
            decompressSome();
        }
        int n = Math.min(len, out.remaining());
        out.get(b, off, n);
        return n;
    }

    /** Runs the decoder once over the buffered input into the (empty) output buffer, reading more body if needed. */
    private void decompressSome() throws IOException {
        if (!in.hasRemaining()) {
            if (bodyEnded) {
                throw new CorruptAnswerException("truncated body: the zstd frame does not end within body_len");
            }
            int r = body.read(inBytes, 0, IN);
            if (r < 0) {
                bodyEnded = true;
                throw new CorruptAnswerException("truncated body: the zstd frame does not end within body_len");
            }
            in.limit(r).position(0);
        }
        out.clear();
        try {
            frameDone = ctx.decompressByteBufferStream(out, in);
        } catch (ZstdException e) {
            throw new CorruptAnswerException("body is not a valid zstd frame: " + e.getMessage(), e);
        } finally {
            out.flip();
        }
    }

    /** True once the whole frame was decoded and all its content read. */
    boolean frameFinished() {
        return frameDone && !out.hasRemaining();
    }

    /** Input bytes read past the end of the frame but not consumed by it (the body may hold more, unread). */
    int leftover() {
        return in.remaining();
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            ctx.close();
        }
    }
}
