package io.outpost.frontier;

import java.lang.invoke.MethodHandle;
import java.lang.reflect.InvocationTargetException;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deflate of a whole buffer by ISA-L's igzip ({@code libisal.so.2}, Debian package {@code libisal2}), Intel's
 * compression library, through its one-shot call {@code isal_deflate_stateless}. At its level 1 it compresses
 * Frontier records 4 to 5 times as fast as libdeflate at level 5, to within 2 % of zlib's level 5 size (measured,
 * docs/frontier.md "Compression"), so it serves zlib's fast levels 1 to 5.
 *
 * <p>igzip's stream state is a C struct; the fields set here lead it and are unchanged across the library's
 * {@code .so.2} versions. {@link #get()} is empty (callers use libdeflate) without the library, on Java 21, or if
 * a probe compressed at load does not inflate back to itself through java.util.zip.
 */
final class Igzip implements NativeDeflate {
    private static final Logger LOG = LoggerFactory.getLogger(Igzip.class);
    private static final String LIBRARY = "libisal.so.2";
    /** zlib levels served by igzip: the "fastest" and "fast" classes. */
    static final int ZLIB_LEVEL_UP_TO = 5;
    /** igzip's level used for them: its fastest with a hash table (level 0 is a plain Huffman pass, far larger). */
    private static final int IGZIP_LEVEL = 1;
    /** ISAL_DEF_LVL1_DEFAULT: the level's hash table, which igzip leaves to the caller. */
    private static final int LEVEL_BUF = 282_624;
    /** sizeof(struct isal_zstream) is 82,384 bytes in ISA-L 2.30; allocated with room to spare. */
    private static final int STREAM_BYTES = 128 << 10;
    // offsets in struct isal_zstream (x86-64)
    private static final long NEXT_IN = 0;
    private static final long AVAIL_IN = 8;
    private static final long NEXT_OUT = 16;
    private static final long AVAIL_OUT = 24;
    private static final long TOTAL_OUT = 28;
    private static final long LEVEL = 40;
    private static final long LEVEL_BUF_SIZE = 44;
    private static final long LEVEL_BUF_PTR = 48;
    private static final long END_OF_STREAM = 56;
    private static final long FLUSH = 58;
    private static final long GZIP_FLAG = 60;
    private static final short NO_FLUSH = 0;
    private static final short FULL_FLUSH = 2;
    private static final short RAW_DEFLATE = 0;
    private static final short ZLIB = 3;
    private static final int IDLE_PER_SIZE = 4;
    /** The smallest input buffer; buffers come in powers of two from there, kept idle up to {@link #SIZES} sizes. */
    private static final int MIN_BUFFER = 64 << 10;
    private static final int SIZES = 6;
    private static final Optional<Igzip> INSTANCE = load();

    private final ForeignFunctions f;
    private final MethodHandle init;
    private final MethodHandle deflate;
    private final MethodHandle adler32;
    /**
     * Idle workers by input buffer size (64 KB to 2 MB, the largest answer held whole): pieces, split answers and whole answers each find theirs
     * instead of trading buffers of the wrong size.
     */
    @SuppressWarnings("unchecked")
    private final ConcurrentLinkedDeque<Worker>[] idle = new ConcurrentLinkedDeque[SIZES];

    private Igzip(ForeignFunctions f) throws ReflectiveOperationException {
        this.f = f;
        init = f.downcall("isal_deflate_stateless_init", null, f.address);
        deflate = f.downcall("isal_deflate_stateless", f.javaInt, f.address);
        adler32 = f.downcall("isal_adler32", f.javaInt, f.javaInt, f.address, f.javaLong);
        for (int i = 0; i < SIZES; i++) {
            idle[i] = new ConcurrentLinkedDeque<>();
        }
    }

    /** The binding, or empty when igzip cannot be used here. */
    static Optional<Igzip> get() {
        return INSTANCE;
    }

    private static Optional<Igzip> load() {
        if (Runtime.version().feature() < 22) {
            return Optional.empty(); // the Foreign Function & Memory API is a preview before Java 22
        }
        try {
            Igzip lib = new Igzip(new ForeignFunctions(LIBRARY));
            lib.probe();
            LOG.info("Frontier answers at zlib levels 1-{} are compressed with {}", ZLIB_LEVEL_UP_TO, LIBRARY);
            return Optional.of(lib);
        } catch (Throwable e) { // no library, no native access, another ABI: fall back, say why
            LOG.info("{} not used for Frontier answers ({})", LIBRARY,
                    e instanceof InvocationTargetException ite ? ite.getCause() : e.toString());
            return Optional.empty();
        }
    }

    /** Compresses a sample every way used and inflates it back: any mismatch keeps the library out. */
    private void probe() throws DataFormatException {
        byte[] sample = new byte[200_000];
        java.util.Random r = new java.util.Random(1);
        for (int i = 0; i < sample.length; i++) {
            sample[i] = (byte) (i % 9 == 0 ? r.nextInt(256) : "conditions data ".charAt(i % 16));
        }
        Piece first = piece(sample, 0, 70_000, 5, false);
        Piece rest = piece(sample, 70_000, sample.length - 70_000, 5, true);
        byte[] joined = ZlibPieces.concat(Arrays.asList(ZlibPieces.header(5), first.deflate(), rest.deflate(),
                ZlibPieces.trailer(ZlibPieces.combineAdler(first.adler32(), rest.adler32(), sample.length - 70_000))));
        for (byte[] z : new byte[][] {zlibCompress(sample, sample.length, 5), joined}) {
            Inflater inf = new Inflater();
            try {
                inf.setInput(z);
                byte[] back = new byte[sample.length + 1];
                int n = inf.inflate(back);
                if (n != sample.length || !inf.finished() || !Arrays.equals(sample, 0, n, back, 0, n)) {
                    throw new IllegalStateException("the probe does not inflate back to itself");
                }
            } finally {
                inf.end();
            }
        }
    }

    /** igzip writes the fastest class in the zlib header; the header says the class of the level asked for. */
    @Override
    public byte[] zlibCompress(byte[] in, int len, int level) {
        byte[] z = compress(in, 0, len, ZLIB, NO_FLUSH, true, null);
        byte[] header = ZlibPieces.header(level);
        z[0] = header[0];
        z[1] = header[1];
        return z;
    }

    @Override
    public byte[] deflateCompress(byte[] in, int off, int len, int level) {
        return compress(in, off, len, RAW_DEFLATE, NO_FLUSH, true, null);
    }

    @Override
    public boolean joinsFree() {
        return true;
    }

    /** A piece not last is fully flushed: igzip then ends it with an empty stored block, no walk needed to join it. */
    @Override
    public Piece piece(byte[] in, int off, int len, int level, boolean last) {
        long[] adler = new long[1];
        byte[] deflate = compress(in, off, len, RAW_DEFLATE, last ? NO_FLUSH : FULL_FLUSH, last, adler);
        return new Piece(deflate, adler[0]);
    }

    /** @param adler null, or where the Adler-32 of the input goes */
    private byte[] compress(byte[] in, int off, int len, short format, short flush, boolean last, long[] adler) {
        long size = bufferSize(len);
        int sizeClass = Long.numberOfTrailingZeros(size / MIN_BUFFER);
        ConcurrentLinkedDeque<Worker> pool = sizeClass < SIZES ? idle[sizeClass] : null;
        Worker w = pool == null ? null : pool.pollFirst();
        try {
            if (w == null) {
                w = new Worker(size);
            }
            f.copyIn(in, off, w.src, len);
            if (adler != null) {
                adler[0] = Integer.toUnsignedLong((int) adler32.invoke(1, w.src, (long) len));
            }
            init.invoke(w.stream);
            f.setLong(w.stream, NEXT_IN, f.address(w.src));
            f.setInt(w.stream, AVAIL_IN, len);
            f.setLong(w.stream, NEXT_OUT, f.address(w.dst));
            f.setInt(w.stream, AVAIL_OUT, (int) w.dstSize);
            f.setInt(w.stream, LEVEL, IGZIP_LEVEL);
            f.setInt(w.stream, LEVEL_BUF_SIZE, LEVEL_BUF);
            f.setLong(w.stream, LEVEL_BUF_PTR, f.address(w.levelBuf));
            f.setShort(w.stream, END_OF_STREAM, (short) (last ? 1 : 0));
            f.setShort(w.stream, FLUSH, flush);
            f.setShort(w.stream, GZIP_FLAG, format);
            int rc = (int) deflate.invoke(w.stream);
            if (rc != 0) {
                throw new IllegalStateException("isal_deflate_stateless returned " + rc + " for " + len + " bytes");
            }
            byte[] out = f.copyOut(w.dst, f.getInt(w.stream, TOTAL_OUT));
            if (pool != null && pool.size() < IDLE_PER_SIZE) {
                pool.offerFirst(w);
                w = null;
            }
            return out;
        } catch (Throwable e) {
            throw ForeignFunctions.failure("igzip", e);
        } finally {
            if (w != null) {
                w.free();
            }
        }
    }

    /** The input buffer for {@code len} bytes: the power of two at or above it, at least {@link #MIN_BUFFER}. */
    static long bufferSize(int len) {
        return Math.max(MIN_BUFFER, Long.highestOneBit(Math.max(len, 1) - 1L) << 1);
    }

    /** A stream state, hash table and input and output buffers, kept between answers: allocating them costs more. */
    private final class Worker {
        final Object arena;
        final Object stream;
        final Object levelBuf;
        final Object src;
        final Object dst;
        final long srcSize;
        final long dstSize;

        Worker(long srcSize) throws ReflectiveOperationException {
            arena = f.sharedArena(); // one thread at a time uses it, not always the same one
            this.srcSize = srcSize;
            // stored blocks at worst: 5 bytes per 64 KB block, the zlib header and trailer, and igzip's end block
            dstSize = srcSize + (srcSize >> 12) + 1024;
            stream = f.allocate(arena, STREAM_BYTES);
            levelBuf = f.allocate(arena, LEVEL_BUF);
            src = f.allocate(arena, srcSize);
            dst = f.allocate(arena, dstSize);
        }

        void free() {
            try {
                f.close(arena);
            } catch (ReflectiveOperationException e) {
                LOG.debug("closing igzip buffers failed: {}", e.toString());
            }
        }
    }
}
