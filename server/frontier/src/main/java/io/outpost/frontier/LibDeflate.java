package io.outpost.frontier;

import java.lang.invoke.MethodHandle;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * zlib-format compression of a whole buffer by the system's libdeflate ({@code libdeflate.so.0}, Debian package
 * {@code libdeflate0}), about twice as fast as {@code java.util.zip.Deflater} at the same level on Frontier answers.
 *
 * <p>The call goes through the Foreign Function &amp; Memory API. The project compiles for Java 21, where that API
 * is still a preview that class files cannot use, so it is reached through reflection and method handles looked up
 * once, and only on Java 22 or later, where it is final. Without the library, on Java 21, or if anything about the
 * binding fails, {@link #get()} is empty and callers keep using {@code java.util.zip}. libdeflate has no streaming
 * interface: the whole input must be in memory.
 */
final class LibDeflate {
    private static final Logger LOG = LoggerFactory.getLogger(LibDeflate.class);
    private static final String LIBRARY = "libdeflate.so.0";
    /** Idle compressors kept per level and kind, with their buffers (for whole answers up to 2 x 2 MB each). */
    private static final int IDLE_PER_LEVEL = 4;
    private static final long MIN_BUFFER = 64 << 10;
    private static final Optional<LibDeflate> INSTANCE = load();

    /** Idle workers by level, twice: for pieces (inputs up to {@link #MIN_BUFFER}) and for whole answers. */
    @SuppressWarnings("unchecked")
    private final java.util.concurrent.ConcurrentLinkedDeque<Worker>[] idle = new java.util.concurrent.ConcurrentLinkedDeque[20];

    private final MethodHandle allocCompressor;
    private final MethodHandle freeCompressor;
    private final MethodHandle zlibCompress;
    private final MethodHandle zlibBound;
    private final MethodHandle deflateCompress;
    private final Method ofShared;
    private final Method allocate;
    private final Method close;
    private final Method copyIn;
    private final Method copyOut;
    private final Method address;
    private final Object byteLayout;

    private LibDeflate(Foreign f) throws ReflectiveOperationException {
        Object lookup = f.symbolLookup();
        allocCompressor = f.downcall(lookup, "libdeflate_alloc_compressor", f.address, f.javaInt);
        freeCompressor = f.downcall(lookup, "libdeflate_free_compressor", null, f.address);
        zlibCompress = f.downcall(lookup, "libdeflate_zlib_compress", f.javaLong, f.address, f.address, f.javaLong,
                f.address, f.javaLong);
        zlibBound = f.downcall(lookup, "libdeflate_zlib_compress_bound", f.javaLong, f.address, f.javaLong);
        deflateCompress = f.downcall(lookup, "libdeflate_deflate_compress", f.javaLong, f.address, f.address,
                f.javaLong, f.address, f.javaLong);
        ofShared = f.arena.getMethod("ofShared");
        for (int i = 0; i < idle.length; i++) {
            idle[i] = new java.util.concurrent.ConcurrentLinkedDeque<>();
        }
        allocate = f.arena.getMethod("allocate", long.class);
        close = f.arena.getMethod("close");
        copyIn = f.segment.getMethod("copy", Object.class, int.class, f.segment, f.valueLayout, long.class, int.class);
        copyOut = f.segment.getMethod("copy", f.segment, f.valueLayout, long.class, Object.class, int.class, int.class);
        address = f.segment.getMethod("address");
        byteLayout = f.valueLayout.getField("JAVA_BYTE").get(null);
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
            LibDeflate lib = new LibDeflate(new Foreign());
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
    byte[] zlibCompress(byte[] in, int len, int level) {
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
    byte[] deflateCompress(byte[] in, int off, int len, int level) {
        return compress(deflateCompress, in, off, len, level);
    }

    private byte[] compress(MethodHandle function, byte[] in, int len, int level) {
        return compress(function, in, 0, len, level);
    }

    private byte[] compress(MethodHandle function, byte[] in, int off, int len, int level) {
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
            copyIn.invoke(null, in, off, w.src, byteLayout, 0L, len);
            long n = (long) function.invoke(w.compressor, w.src, (long) len, w.dst, w.dstSize);
            if (n <= 0) {
                throw new IllegalStateException("libdeflate returned " + n + " for " + len + " bytes");
            }
            byte[] out = new byte[(int) n];
            copyOut.invoke(null, w.dst, byteLayout, 0L, out, 0, (int) n);
            if (pool.size() < IDLE_PER_LEVEL) {
                pool.offerFirst(w);
                w = null;
            }
            return out;
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (InvocationTargetException e) {
            throw new IllegalStateException("libdeflate call failed", e.getCause());
        } catch (Throwable e) {
            throw new IllegalStateException("libdeflate call failed", e);
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
            if ((long) address.invoke(compressor) == 0) {
                throw new OutOfMemoryError("libdeflate_alloc_compressor(" + level + ") failed");
            }
            try {
                arena = ofShared.invoke(null); // one thread at a time uses it, not always the same one
                srcSize = Math.max(MIN_BUFFER, Long.highestOneBit(Math.max(len, 1) - 1L) << 1);
                dstSize = (long) zlibBound.invoke(compressor, srcSize);
                src = allocate.invoke(arena, srcSize);
                dst = allocate.invoke(arena, dstSize);
            } catch (Throwable e) {
                freeCompressor.invoke(compressor);
                throw e;
            }
        }

        void free() {
            try {
                close.invoke(arena);
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

    /** The classes and constants of java.lang.foreign, looked up by name so this file compiles for Java 21. */
    private static final class Foreign {
        final Class<?> linker = Class.forName("java.lang.foreign.Linker");
        final Class<?> arena = Class.forName("java.lang.foreign.Arena");
        final Class<?> segment = Class.forName("java.lang.foreign.MemorySegment");
        final Class<?> lookup = Class.forName("java.lang.foreign.SymbolLookup");
        final Class<?> descriptor = Class.forName("java.lang.foreign.FunctionDescriptor");
        final Class<?> layout = Class.forName("java.lang.foreign.MemoryLayout");
        final Class<?> valueLayout = Class.forName("java.lang.foreign.ValueLayout");
        final Class<?> option = Class.forName("java.lang.foreign.Linker$Option");
        final Object address = valueLayout.getField("ADDRESS").get(null);
        final Object javaLong = valueLayout.getField("JAVA_LONG").get(null);
        final Object javaInt = valueLayout.getField("JAVA_INT").get(null);
        final Object nativeLinker = linker.getMethod("nativeLinker").invoke(null);

        Foreign() throws ReflectiveOperationException {
        }

        Object symbolLookup() throws ReflectiveOperationException {
            Object global = arena.getMethod("global").invoke(null);
            return lookup.getMethod("libraryLookup", String.class, arena).invoke(null, LIBRARY, global);
        }

        /** A method handle calling {@code name}; {@code result} null for a void function. */
        MethodHandle downcall(Object symbols, String name, Object result, Object... args)
                throws ReflectiveOperationException {
            Optional<?> symbol = (Optional<?>) lookup.getMethod("find", String.class).invoke(symbols, name);
            Object function = symbol.orElseThrow(() -> new NoSuchMethodException(LIBRARY + " has no " + name));
            Object[] argLayouts = (Object[]) java.lang.reflect.Array.newInstance(layout, args.length);
            System.arraycopy(args, 0, argLayouts, 0, args.length);
            Object fd = result == null
                    ? descriptor.getMethod("ofVoid", argLayouts.getClass()).invoke(null, (Object) argLayouts)
                    : descriptor.getMethod("of", layout, argLayouts.getClass()).invoke(null, result, argLayouts);
            Object noOptions = java.lang.reflect.Array.newInstance(option, 0);
            return (MethodHandle) linker.getMethod("downcallHandle", segment, descriptor, noOptions.getClass())
                    .invoke(nativeLinker, function, fd, noOptions);
        }
    }
}
