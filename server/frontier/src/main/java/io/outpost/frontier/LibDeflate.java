package io.outpost.frontier;

import java.lang.invoke.MethodHandle;
import java.lang.reflect.InvocationTargetException;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * zlib-format compression of a whole buffer by the system's libdeflate ({@code libdeflate.so.0}, Debian package
 * {@code libdeflate0}), about twice as fast as {@code java.util.zip.Deflater} at the same level on Frontier answers.
 *
 * <p>The call goes through the Foreign Function &amp; Memory API ({@link ForeignFunctions}), on Java 22 or later.
 * Without the library, on Java 21, or if anything about the binding fails, {@link #get()} is empty and callers keep
 * using {@code java.util.zip}. libdeflate has no streaming interface: the whole input must be in memory.
 */
final class LibDeflate implements NativeDeflate {
    private static final Logger LOG = LoggerFactory.getLogger(LibDeflate.class);
    private static final String LIBRARY = "libdeflate.so.0";
    /** Idle compressors kept per level and kind, with their buffers (for whole answers up to 2 x 2 MB each). */
    private static final int IDLE_PER_LEVEL = 4;
    private static final long MIN_BUFFER = 64 << 10;
    private static final Optional<LibDeflate> INSTANCE = load();

    /** Idle workers by level, twice: for pieces (inputs up to {@link #MIN_BUFFER}) and for whole answers. */
    @SuppressWarnings("unchecked")
    private final java.util.concurrent.ConcurrentLinkedDeque<Worker>[] idle = new java.util.concurrent.ConcurrentLinkedDeque[20];

    private final ForeignFunctions f;
    private final MethodHandle allocCompressor;
    private final MethodHandle freeCompressor;
    private final MethodHandle zlibCompress;
    private final MethodHandle zlibBound;
    private final MethodHandle deflateCompress;
    private final MethodHandle adler32;

    private LibDeflate(ForeignFunctions f) throws ReflectiveOperationException {
        this.f = f;
        allocCompressor = f.downcall("libdeflate_alloc_compressor", f.address, f.javaInt);
        freeCompressor = f.downcall("libdeflate_free_compressor", null, f.address);
        zlibCompress = f.downcall("libdeflate_zlib_compress", f.javaLong, f.address, f.address, f.javaLong, f.address,
                f.javaLong);
        zlibBound = f.downcall("libdeflate_zlib_compress_bound", f.javaLong, f.address, f.javaLong);
        deflateCompress = f.downcall("libdeflate_deflate_compress", f.javaLong, f.address, f.address, f.javaLong,
                f.address, f.javaLong);
        adler32 = f.downcall("libdeflate_adler32", f.javaInt, f.javaInt, f.address, f.javaLong);
        for (int i = 0; i < idle.length; i++) {
            idle[i] = new java.util.concurrent.ConcurrentLinkedDeque<>();
        }
    }

    /** The binding, or empty when libdeflate cannot be used here (callers then use java.util.zip). */
    static Optional<LibDeflate> get() {
        return INSTANCE;
    }

    private static Optional<LibDeflate> load() {
        if (Runtime.version().feature() < 22) {
            return Optional.empty(); // the Foreign Function & Memory API is a preview before Java 22
        }
        try {
            LibDeflate lib = new LibDeflate(new ForeignFunctions(LIBRARY));
            byte[] probe = "libdeflate probe".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            lib.zlibCompress(probe, probe.length, 5);
            LOG.info("Frontier answers are compressed with {}", LIBRARY);
            return Optional.of(lib);
        } catch (Throwable e) { // no library, no native access, another JDK's API: fall back, say why
            LOG.info("{} not used for Frontier answers ({}); compressing with java.util.zip", LIBRARY,
                    e instanceof InvocationTargetException ite ? ite.getCause() : e.toString());
            return Optional.empty();
        }
    }

    /**
     * The zlib stream (header, deflate data, Adler-32) of {@code in[0, len)} at zlib's {@code level} (0-9; the
     * header's level class follows the level as in zlib).
     */
    @Override
    public byte[] zlibCompress(byte[] in, int len, int level) {
        return compress(zlibCompress, in, len, level);
    }

    /**
     * The raw deflate stream (no header, no checksum; its last block marked final) of {@code in[0, len)} at
     * zlib's {@code level}.
     */
    byte[] deflateCompress(byte[] in, int len, int level) {
        return compress(deflateCompress, in, 0, len, level);
    }

    /** As {@link #deflateCompress(byte[], int, int)}, of {@code in[off, off + len)}. */
    @Override
    public byte[] deflateCompress(byte[] in, int off, int len, int level) {
        return compress(deflateCompress, in, off, len, level);
    }

    @Override
    public Piece piece(byte[] in, int off, int len, int level, boolean last) {
        long[] adler = new long[1];
        byte[] raw = compress(deflateCompress, in, off, len, level, adler);
        return new Piece(last ? raw : ZlibPieces.joinable(raw), adler[0]);
    }

    private byte[] compress(MethodHandle function, byte[] in, int len, int level) {
        return compress(function, in, 0, len, level, null);
    }

    private byte[] compress(MethodHandle function, byte[] in, int off, int len, int level) {
        return compress(function, in, off, len, level, null);
    }

    /** @param adler null, or where the Adler-32 of the input goes */
    private byte[] compress(MethodHandle function, byte[] in, int off, int len, int level, long[] adler) {
        java.util.concurrent.ConcurrentLinkedDeque<Worker> pool = idle[len <= MIN_BUFFER ? level : 10 + level];
        Worker w = pool.pollFirst();
        try {
            if (w != null && w.srcSize < len) {
                w.free(); // a bigger answer than this worker was made for
                w = null;
            }
            if (w == null) {
                w = new Worker(level, len);
            }
            f.copyIn(in, off, w.src, len);
            if (adler != null) {
                adler[0] = Integer.toUnsignedLong((int) adler32.invoke(1, w.src, (long) len));
            }
            long n = (long) function.invoke(w.compressor, w.src, (long) len, w.dst, w.dstSize);
            if (n <= 0) {
                throw new IllegalStateException("libdeflate returned " + n + " for " + len + " bytes");
            }
            byte[] out = f.copyOut(w.dst, (int) n);
            if (pool.size() < IDLE_PER_LEVEL) {
                pool.offerFirst(w);
                w = null;
            }
            return out;
        } catch (Throwable e) {
            throw ForeignFunctions.failure("libdeflate", e);
        } finally {
            if (w != null) {
                w.free();
            }
        }
    }

    /**
     * A compressor with its native input and output buffers, kept between answers ({@link #IDLE_PER_LEVEL} per
     * level, for pieces and for whole answers each): making them costs more than compressing a small answer (the
     * compressor's tables, and buffers that the allocator zeroes).
     */
    private final class Worker {
        final Object compressor;
        final Object arena;
        final Object src;
        final Object dst;
        final long srcSize;
        final long dstSize;

        Worker(int level, int len) throws Throwable {
            compressor = allocCompressor.invoke(level);
            if (f.address(compressor) == 0) {
                throw new OutOfMemoryError("libdeflate_alloc_compressor(" + level + ") failed");
            }
            try {
                arena = f.sharedArena(); // one thread at a time uses it, not always the same one
                srcSize = Math.max(MIN_BUFFER, Long.highestOneBit(Math.max(len, 1) - 1L) << 1);
                dstSize = (long) zlibBound.invoke(compressor, srcSize);
                src = f.allocate(arena, srcSize);
                dst = f.allocate(arena, dstSize);
            } catch (Throwable e) {
                freeCompressor.invoke(compressor);
                throw e;
            }
        }

        void free() {
            try {
                f.close(arena);
            } catch (ReflectiveOperationException e) {
                LOG.debug("closing libdeflate buffers failed: {}", e.toString());
            } finally {
                try {
                    freeCompressor.invoke(compressor);
                } catch (Throwable e) {
                    LOG.debug("libdeflate_free_compressor failed: {}", e.toString());
                }
            }
        }
    }
}
