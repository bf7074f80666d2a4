package io.outpost.frontier.encode;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deflate of a whole answer by ISA-L's igzip ({@code libisal.so.2}, Debian package {@code libisal2}), Intel's
 * compression library, through its one-shot call {@code isal_deflate_stateless} and the Foreign Function &amp; Memory
 * API (final since Java 22: this class is the Java 22 version of a multi-release jar; Java 21 loads the version
 * under {@code src/main/java}, which never finds the library). At its level 1 it compresses Frontier records 4 to 5
 * times as fast as zlib's level 5, to within 2 % of its size (docs/frontier.md, "Compression"), so it serves zlib's
 * fast levels 1 to 5.
 *
 * <p>igzip's stream state is a C struct; the fields set here lead it and are unchanged across the library's
 * {@code .so.2} versions. {@link #get()} is empty (answers are compressed by java.util.zip) without the library,
 * without native access, or if a probe compressed at load does not inflate back to itself through java.util.zip.
 */
final class Igzip {
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
    private static final short ZLIB = 3;
    /** Idle workers kept per buffer size: about the answers compressed at once on a few cores. */
    private static final int IDLE_PER_SIZE = 4;
    /** The smallest input buffer; buffers come in powers of two from there, kept idle up to {@link #SIZES} sizes. */
    private static final int MIN_BUFFER = 64 << 10;
    private static final int SIZES = 6;
    private static final Optional<Igzip> INSTANCE = load();

    private final MethodHandle init;
    private final MethodHandle deflate;
    /** Idle workers by input buffer size (64 KB to 2 MB, the largest answer held whole). */
    @SuppressWarnings("unchecked")
    private final ConcurrentLinkedDeque<Worker>[] idle = new ConcurrentLinkedDeque[SIZES];

    private Igzip(SymbolLookup library) {
        Linker linker = Linker.nativeLinker();
        init = linker.downcallHandle(find(library, "isal_deflate_stateless_init"),
                FunctionDescriptor.ofVoid(ValueLayout.ADDRESS));
        deflate = linker.downcallHandle(find(library, "isal_deflate_stateless"),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
        for (int i = 0; i < SIZES; i++) {
            idle[i] = new ConcurrentLinkedDeque<>();
        }
    }

    private static MemorySegment find(SymbolLookup library, String name) {
        return library.find(name).orElseThrow(() -> new IllegalStateException(LIBRARY + " has no " + name));
    }

    /** The binding, or empty when igzip cannot be used here. */
    static Optional<Igzip> get() {
        return INSTANCE;
    }

    private static Optional<Igzip> load() {
        try {
            Igzip lib = new Igzip(SymbolLookup.libraryLookup(LIBRARY, Arena.global()));
            lib.probe();
            LOG.info("Frontier answers at zlib levels 1-{} are compressed with {}", ZLIB_LEVEL_UP_TO, LIBRARY);
            return Optional.of(lib);
        } catch (RuntimeException | DataFormatException | LinkageError e) { // no library, no native access: say why
            LOG.info("{} not used for Frontier answers ({})", LIBRARY, e.toString());
            return Optional.empty();
        }
    }

    /** Compresses a sample and inflates it back: any mismatch keeps the library out. */
    private void probe() throws DataFormatException {
        byte[] sample = new byte[200_000];
        java.util.Random r = new java.util.Random(1);
        for (int i = 0; i < sample.length; i++) {
            sample[i] = (byte) (i % 9 == 0 ? r.nextInt(256) : "conditions data ".charAt(i % 16));
        }
        Inflater inf = new Inflater();
        try {
            inf.setInput(zlibCompress(sample, sample.length, 5));
            byte[] back = new byte[sample.length + 1];
            int n = inf.inflate(back);
            if (n != sample.length || !inf.finished() || !Arrays.equals(sample, 0, n, back, 0, n)) {
                throw new IllegalStateException("the probe does not inflate back to itself");
            }
        } finally {
            inf.end();
        }
    }

    /**
     * The zlib stream (header, deflate data, Adler-32) of {@code in[0, len)}. igzip writes the fastest class in the
     * zlib header; the header here says the class of the {@code level} asked for, as zlib's would.
     */
    byte[] zlibCompress(byte[] in, int len, int level) {
        long size = bufferSize(len);
        int sizeClass = Long.numberOfTrailingZeros(size / MIN_BUFFER);
        ConcurrentLinkedDeque<Worker> pool = sizeClass < SIZES ? idle[sizeClass] : null;
        Worker w = pool == null ? null : pool.pollFirst();
        try {
            if (w == null) {
                w = new Worker(size);
            }
            MemorySegment.copy(in, 0, w.src, ValueLayout.JAVA_BYTE, 0, len);
            MemorySegment s = w.stream;
            init.invokeExact(s);
            s.set(ValueLayout.JAVA_LONG, NEXT_IN, w.src.address());
            s.set(ValueLayout.JAVA_INT, AVAIL_IN, len);
            s.set(ValueLayout.JAVA_LONG, NEXT_OUT, w.dst.address());
            s.set(ValueLayout.JAVA_INT, AVAIL_OUT, (int) w.dst.byteSize());
            s.set(ValueLayout.JAVA_INT, LEVEL, IGZIP_LEVEL);
            s.set(ValueLayout.JAVA_INT, LEVEL_BUF_SIZE, LEVEL_BUF);
            s.set(ValueLayout.JAVA_LONG, LEVEL_BUF_PTR, w.levelBuf.address());
            s.set(ValueLayout.JAVA_SHORT, END_OF_STREAM, (short) 1);
            s.set(ValueLayout.JAVA_SHORT, FLUSH, NO_FLUSH);
            s.set(ValueLayout.JAVA_SHORT, GZIP_FLAG, ZLIB);
            int rc = (int) deflate.invokeExact(s);
            if (rc != 0) {
                throw new IllegalStateException("isal_deflate_stateless returned " + rc + " for " + len + " bytes");
            }
            byte[] z = w.dst.asSlice(0, s.get(ValueLayout.JAVA_INT, TOTAL_OUT)).toArray(ValueLayout.JAVA_BYTE);
            byte[] header = ZlibHeader.of(level);
            z[0] = header[0];
            z[1] = header[1];
            if (pool != null && pool.size() < IDLE_PER_SIZE) {
                pool.offerFirst(w);
                w = null;
            }
            return z;
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) { // invokeExact declares Throwable; the native calls throw nothing else
            throw new IllegalStateException("igzip call failed", e);
        } finally {
            if (w != null) {
                w.arena.close();
            }
        }
    }

    /** The input buffer for {@code len} bytes: the power of two at or above it, at least {@link #MIN_BUFFER}. */
    static long bufferSize(int len) {
        return Math.max(MIN_BUFFER, Long.highestOneBit(Math.max(len, 1) - 1L) << 1);
    }

    /** A stream state, hash table and input and output buffers, kept between answers: allocating them costs more. */
    private static final class Worker {
        /** Shared: one thread at a time uses a worker, not always the same one. */
        final Arena arena = Arena.ofShared();
        final MemorySegment stream;
        final MemorySegment levelBuf;
        final MemorySegment src;
        final MemorySegment dst;

        Worker(long srcSize) {
            stream = arena.allocate(STREAM_BYTES, 64);
            levelBuf = arena.allocate(LEVEL_BUF, 64);
            src = arena.allocate(srcSize, 64);
            // stored blocks at worst: 5 bytes per 64 KB block, the zlib header and trailer, and igzip's end block
            dst = arena.allocate(srcSize + (srcSize >> 12) + 1024, 64);
        }
    }
}
