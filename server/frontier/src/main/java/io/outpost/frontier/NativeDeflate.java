package io.outpost.frontier;

import java.util.Optional;

/**
 * Deflate of a whole buffer in memory by a native library: libdeflate ({@link LibDeflate}) or ISA-L's igzip
 * ({@link Igzip}). Frontier clients only inflate, so any conforming stream will do; {@link #forLevel} picks the
 * library for the level a client asked for.
 */
interface NativeDeflate {
    /**
     * System property: {@code libdeflate} compresses every level with libdeflate even where igzip is present
     * (to compare the two side by side).
     */
    String LIBRARY_PROPERTY = "outpost.frontier.deflate.library";

    /** The zlib stream (header with the level class of zlib's {@code level}, deflate data, Adler-32) of {@code in[0, len)}. */
    byte[] zlibCompress(byte[] in, int len, int level);

    /** The raw deflate stream (no header, no checksum; its last block marked final) of {@code in[off, off + len)}. */
    byte[] deflateCompress(byte[] in, int off, int len, int level);

    /** A piece of a zlib stream: its deflate data and the Adler-32 of its input alone. */
    record Piece(byte[] deflate, long adler32) {
    }

    /**
     * {@code in[off, off + len)} compressed as a piece of a stream ({@link ZlibPieces}): joinable, or final if
     * {@code last}; with the Adler-32 of the input, computed by the library while the input is in its memory (the
     * pieces' checksums are then combined in order, off the thread reading rows).
     */
    Piece piece(byte[] in, int off, int len, int level, boolean last);

    /** Whether a joinable piece costs no more than a final one (no walk to find where its last block ends). */
    default boolean joinsFree() {
        return false;
    }

    /**
     * The library for answers at zlib's {@code level}, or empty (then java.util.zip): igzip for levels 1 to 5, zlib's
     * two fast classes, where it is 4 to 5 times as fast as libdeflate for output within 2 % of zlib's (docs/frontier.md,
     * "Compression"); libdeflate for level 0 and levels 6 to 9, which ask for smaller answers.
     */
    static Optional<NativeDeflate> forLevel(int level) {
        if (level >= 1 && level <= Igzip.ZLIB_LEVEL_UP_TO && !"libdeflate".equals(System.getProperty(LIBRARY_PROPERTY))) {
            Optional<Igzip> igzip = Igzip.get();
            if (igzip.isPresent()) {
                return Optional.of(igzip.get());
            }
        }
        return LibDeflate.get().map(NativeDeflate.class::cast);
    }
}
