package io.outpost.wire;

import com.github.luben.zstd.EndDirective;
import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.Deflater;

/**
 * Compresses an answer's content, handed over in chunks, into one zlib stream, one zstd frame or (codec 0) the
 * bytes themselves, appended to the answer. Zstd contexts are pooled: creating one per answer (about a megabyte of
 * native tables, freshly zeroed) cost as much as compressing a 100 KB answer.
 */
sealed interface BodyCompressor {

    /** Appends the compressed form of {@code src[off, off+len)}; {@code last} ends the stream. */
    void compress(byte[] src, int off, int len, boolean last, GrowableBytes out);

    /** Frees or returns native resources; {@code completed} says whether the stream was ended normally. */
    void release(boolean completed);

    static BodyCompressor of(Codec codec, int level) {
        return switch (codec) {
            case NONE -> new Stored();
            case ZLIB -> new Zlib(level);
            case ZSTD -> new ZstdFrame(level);
        };
    }

    /** Codec 0: the content as it is. */
    final class Stored implements BodyCompressor {
        @Override
        public void compress(byte[] src, int off, int len, boolean last, GrowableBytes out) {
            out.ensure(len);
            System.arraycopy(src, off, out.array(), out.size(), len);
            out.size(out.size() + len);
        }

        @Override
        public void release(boolean completed) {
        }
    }

    /** Codec 1: one zlib stream (RFC 1950). */
    final class Zlib implements BodyCompressor {
        private final Deflater deflater;

        Zlib(int level) {
            deflater = new Deflater(level);
        }

        @Override
        public void compress(byte[] src, int off, int len, boolean last, GrowableBytes out) {
            deflater.setInput(src, off, len);
            if (last) {
                deflater.finish();
            }
            while (last ? !deflater.finished() : !deflater.needsInput()) {
                out.ensure(64 * 1024);
                int n = deflater.deflate(out.array(), out.size(), out.free());
                out.size(out.size() + n);
            }
        }

        @Override
        public void release(boolean completed) {
            deflater.end();
        }
    }

    /** Codec 2: one zstd frame, from a pooled context. */
    final class ZstdFrame implements BodyCompressor {
        private static final int POOL_LIMIT = Math.max(4, 2 * Runtime.getRuntime().availableProcessors());
        private static final ConcurrentLinkedQueue<ZstdCompressCtx> POOL = new ConcurrentLinkedQueue<>();
        private static final AtomicInteger POOLED = new AtomicInteger();

        private final ZstdCompressCtx ctx;

        ZstdFrame(int level) {
            ZstdCompressCtx c = POOL.poll();
            if (c != null) {
                POOLED.decrementAndGet();
            } else {
                c = new ZstdCompressCtx();
            }
            ctx = c.setLevel(level);
        }

        @Override
        public void compress(byte[] src, int off, int len, boolean last, GrowableBytes out) {
            ByteBuffer in = ByteBuffer.wrap(src, off, len);
            out.ensure((int) Math.min(Integer.MAX_VALUE - 16, Zstd.compressBound(len) + 64));
            while (true) {
                ByteBuffer dst = ByteBuffer.wrap(out.array(), out.size(), out.free());
                boolean flushed = ctx.compressByteBufferStream(dst, in, last ? EndDirective.END : EndDirective.CONTINUE);
                out.size(dst.position());
                if (last ? flushed : !in.hasRemaining()) {
                    return;
                }
                out.ensure(128 * 1024);
            }
        }

        @Override
        public void release(boolean completed) {
            // A context left in the middle of a frame would continue it: only finished ones go back to the pool.
            if (completed && POOLED.incrementAndGet() <= POOL_LIMIT) {
                POOL.offer(ctx);
            } else {
                if (completed) {
                    POOLED.decrementAndGet();
                }
                ctx.close();
            }
        }
    }
}
