package io.outpost.frontier;

import java.lang.invoke.MethodHandle;
import java.lang.reflect.Method;
import java.util.Optional;

/**
 * One native library's functions and the memory calls around them, through the Foreign Function &amp; Memory API.
 * The project compiles for Java 21, where that API is still a preview that class files cannot use, so its classes
 * are looked up by name and called through reflection and method handles, found once; use it on Java 22 or later,
 * where the API is final. Shared by the compression bindings ({@link LibDeflate}, {@link Igzip}).
 */
final class ForeignFunctions {
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
    private final Object javaShort = valueLayout.getField("JAVA_SHORT").get(null);
    private final Object javaByte = valueLayout.getField("JAVA_BYTE").get(null);
    private final Object nativeLinker = linker.getMethod("nativeLinker").invoke(null);
    private final String library;
    private final Object symbols;
    private final Method ofShared = arena.getMethod("ofShared");
    private final Method allocate = arena.getMethod("allocate", long.class, long.class);
    private final Method close = arena.getMethod("close");
    private final Method copyIn = segment.getMethod("copy", Object.class, int.class, segment, valueLayout, long.class,
            int.class);
    private final Method copyOut = segment.getMethod("copy", segment, valueLayout, long.class, Object.class, int.class,
            int.class);
    private final Method addressOf = segment.getMethod("address");
    private final Method setInt = segment.getMethod("set", Class.forName("java.lang.foreign.ValueLayout$OfInt"), long.class, int.class);
    private final Method setShort = segment.getMethod("set", Class.forName("java.lang.foreign.ValueLayout$OfShort"), long.class,
            short.class);
    private final Method setLong = segment.getMethod("set", Class.forName("java.lang.foreign.ValueLayout$OfLong"), long.class,
            long.class);
    private final Method getInt = segment.getMethod("get", Class.forName("java.lang.foreign.ValueLayout$OfInt"), long.class);

    /** @param library the shared library's file name, e.g. {@code libdeflate.so.0}, found as the system loader would */
    ForeignFunctions(String library) throws ReflectiveOperationException {
        this.library = library;
        Object global = arena.getMethod("global").invoke(null);
        symbols = lookup.getMethod("libraryLookup", String.class, arena).invoke(null, library, global);
    }

    /** What to throw for {@code e} from a native call: itself if unchecked, else an IllegalStateException naming it. */
    static RuntimeException failure(String library, Throwable e) {
        if (e instanceof RuntimeException r) {
            return r;
        }
        if (e instanceof Error error) {
            throw error;
        }
        Throwable cause = e instanceof java.lang.reflect.InvocationTargetException ite ? ite.getCause() : e;
        return new IllegalStateException(library + " call failed", cause);
    }

    /** A method handle calling the library's {@code name}; {@code result} null for a void function. */
    MethodHandle downcall(String name, Object result, Object... args) throws ReflectiveOperationException {
        Optional<?> symbol = (Optional<?>) lookup.getMethod("find", String.class).invoke(symbols, name);
        Object function = symbol.orElseThrow(() -> new NoSuchMethodException(library + " has no " + name));
        Object[] argLayouts = (Object[]) java.lang.reflect.Array.newInstance(layout, args.length);
        System.arraycopy(args, 0, argLayouts, 0, args.length);
        Object fd = result == null
                ? descriptor.getMethod("ofVoid", argLayouts.getClass()).invoke(null, (Object) argLayouts)
                : descriptor.getMethod("of", layout, argLayouts.getClass()).invoke(null, result, argLayouts);
        Object noOptions = java.lang.reflect.Array.newInstance(option, 0);
        return (MethodHandle) linker.getMethod("downcallHandle", segment, descriptor, noOptions.getClass())
                .invoke(nativeLinker, function, fd, noOptions);
    }

    /** A new arena that any one thread at a time may use (buffers kept between answers move between threads). */
    Object sharedArena() throws ReflectiveOperationException {
        return ofShared.invoke(null);
    }

    /** {@code size} zeroed bytes of native memory on a 64-byte boundary (a cache line), freed with {@code arena}. */
    Object allocate(Object arena, long size) throws ReflectiveOperationException {
        return allocate.invoke(arena, size, 64L);
    }

    void close(Object arena) throws ReflectiveOperationException {
        close.invoke(arena);
    }

    /** {@code in[off, off + len)} into the start of {@code segment}. */
    void copyIn(byte[] in, int off, Object segment, int len) throws ReflectiveOperationException {
        copyIn.invoke(null, in, off, segment, javaByte, 0L, len);
    }

    /** The first {@code len} bytes of {@code segment}, as a new array. */
    byte[] copyOut(Object segment, int len) throws ReflectiveOperationException {
        byte[] out = new byte[len];
        copyOut.invoke(null, segment, javaByte, 0L, out, 0, len);
        return out;
    }

    long address(Object segment) throws ReflectiveOperationException {
        return (long) addressOf.invoke(segment);
    }

    void setInt(Object segment, long offset, int value) throws ReflectiveOperationException {
        setInt.invoke(segment, javaInt, offset, value);
    }

    void setShort(Object segment, long offset, short value) throws ReflectiveOperationException {
        setShort.invoke(segment, javaShort, offset, value);
    }

    void setLong(Object segment, long offset, long value) throws ReflectiveOperationException {
        setLong.invoke(segment, javaLong, offset, value);
    }

    int getInt(Object segment, long offset) throws ReflectiveOperationException {
        return (int) getInt.invoke(segment, javaInt, offset);
    }
}
