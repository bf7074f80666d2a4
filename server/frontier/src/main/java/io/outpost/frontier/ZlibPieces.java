package io.outpost.frontier;

import java.util.Arrays;

/**
 * One zlib stream made of independently compressed pieces, as pigz makes it: each piece but the last is a raw
 * deflate stream whose final mark is cleared and which ends with an empty stored block (so the next piece starts on
 * a byte); the stream is the zlib header, the pieces in order, and the Adler-32 of all the input. Any inflater reads
 * it as one ordinary zlib stream. This lets libdeflate or igzip, which compress whole buffers here, compress an answer's
 * chunks in parallel while its rows are still being read.
 */
final class ZlibPieces {
    private ZlibPieces() {
    }

    /** The two header bytes of a zlib stream at {@code level}, with zlib's level class (as libdeflate writes it). */
    static byte[] header(int level) {
        int levelClass = level < 2 ? 0 : level < 6 ? 1 : level == 6 ? 2 : 3;
        int cmf = 0x78; // deflate, 32 KB window
        int flg = levelClass << 6;
        flg += 31 - ((cmf << 8 | flg) % 31);
        return new byte[] {(byte) cmf, (byte) flg};
    }

    /** {@code in[0, len)} compressed as a piece of the stream: the last one as is, others joinable. */
    static NativeDeflate.Piece piece(NativeDeflate lib, byte[] in, int len, int level, boolean last) {
        return lib.piece(in, 0, len, level, last);
    }

    /** {@code in[off, off + len)} compressed as a piece of the stream (see above). */
    static NativeDeflate.Piece piece(NativeDeflate lib, byte[] in, int off, int len, int level, boolean last) {
        return lib.piece(in, off, len, level, last);
    }

    /**
     * The Adler-32 of two inputs one after the other, from the checksum of each and the second's length (as zlib's
     * {@code adler32_combine}): the pieces' checksums, computed in parallel, make the stream's.
     */
    static long combineAdler(long first, long second, long secondLength) {
        final long base = 65521;
        long rem = secondLength % base;
        long sum1 = first & 0xffff;
        long sum2 = rem * sum1 % base;
        sum1 += (second & 0xffff) + base - 1;
        sum2 += ((first >>> 16) & 0xffff) + ((second >>> 16) & 0xffff) + base - rem;
        sum1 %= base;
        sum2 %= base;
        return sum1 | sum2 << 16;
    }

    /** A complete raw deflate stream made not final and ending with an empty stored block, on a byte boundary. */
    static byte[] joinable(byte[] raw) {
        DeflateBlocks.Last last = DeflateBlocks.lastOfComplete(raw, raw.length);
        long end = last.endBit();
        int aligned = (int) ((end + 3 + 7) >>> 3); // 3 header bits (not final, stored), then padding to a byte
        byte[] out = Arrays.copyOf(raw, aligned + 4);
        out[(int) (last.headerBit() >>> 3)] &= (byte) ~(1 << (int) (last.headerBit() & 7));
        int endByte = (int) (end >>> 3);
        if ((end & 7) != 0) {
            out[endByte] &= (byte) ((1 << (int) (end & 7)) - 1); // the header's zero bits where padding was
            endByte++;
        }
        Arrays.fill(out, endByte, aligned + 2, (byte) 0); // rest of the header and padding, then LEN = 0
        out[aligned + 2] = (byte) 0xFF; // NLEN
        out[aligned + 3] = (byte) 0xFF;
        return out;
    }

    /** The four trailer bytes: Adler-32, most significant byte first. */
    static byte[] trailer(long adler32) {
        return new byte[] {(byte) (adler32 >>> 24), (byte) (adler32 >>> 16), (byte) (adler32 >>> 8), (byte) adler32};
    }

    /** The parts of a stream, one after the other in one array. */
    static byte[] concat(java.util.List<byte[]> parts) {
        int n = 0;
        for (byte[] p : parts) {
            n += p.length;
        }
        byte[] all = new byte[n];
        int at = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, all, at, p.length);
            at += p.length;
        }
        return all;
    }
}
