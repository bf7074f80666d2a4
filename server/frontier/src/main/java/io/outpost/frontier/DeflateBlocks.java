package io.outpost.frontier;

/**
 * Finds where a raw deflate stream's last block starts and ends (RFC 1951), walking its blocks and their Huffman
 * codes without producing output. libdeflate compresses whole buffers only, into a stream whose last block is
 * marked final and padded to a byte: to join independently compressed pieces into one stream (as pigz does), the
 * final mark must be cleared and the next piece must start right after the last block's end-of-block code, which
 * only a walk through the codes can tell.
 */
final class DeflateBlocks {
    /** Bit offsets (from the first byte's lowest bit) of the last block's header and of the bit after its end. */
    record Last(long headerBit, long endBit) {
    }

    private static final int[] CODE_LENGTH_ORDER = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};
    private static final int[] LENGTH_EXTRA = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4,
        5, 5, 5, 5, 0};
    private static final int[] DISTANCE_EXTRA = {0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10,
        10, 11, 11, 12, 12, 13, 13};
    private static final Huffman FIXED_LITERALS;
    private static final Huffman FIXED_DISTANCES;

    static {
        int[] lit = new int[288];
        for (int i = 0; i < 288; i++) {
            lit[i] = i < 144 ? 8 : i < 256 ? 9 : i < 280 ? 7 : 8;
        }
        int[] dist = new int[30];
        java.util.Arrays.fill(dist, 5);
        FIXED_LITERALS = Huffman.of(lit, 0, lit.length);
        FIXED_DISTANCES = Huffman.of(dist, 0, dist.length);
    }

    private DeflateBlocks() {
    }

    /** The last block of the raw deflate stream in {@code d[0, len)}; a malformed stream is an IllegalStateException. */
    static Last last(byte[] d, int len) {
        Bits in = new Bits(d, len);
        while (true) {
            long header = in.position();
            int isFinal = in.take(1);
            int type = in.take(2);
            switch (type) {
                case 0 -> {
                    in.alignToByte();
                    int n = in.take(16);
                    if ((in.take(16) ^ 0xFFFF) != n) {
                        throw new IllegalStateException("stored block length check failed");
                    }
                    in.skip(8L * n);
                }
                case 1 -> skipCodes(in, FIXED_LITERALS, FIXED_DISTANCES);
                case 2 -> {
                    int literals = in.take(5) + 257;
                    int[] lengths = codeLengths(in, literals);
                    skipCodes(in, Huffman.of(lengths, 0, literals),
                            Huffman.of(lengths, literals, lengths.length - literals));
                }
                default -> throw new IllegalStateException("invalid block type 3");
            }
            in.checkInside();
            if (isFinal == 1) {
                return new Last(header, in.position());
            }
        }
    }

    /**
     * As {@link #last}, for a stream known to be complete and valid (libdeflate's own output). A stream of one
     * block with its own Huffman codes (what libdeflate makes of a 64 KB piece of records) ends with that block's
     * end-of-block code and then zero bits up to the byte: the end is found by trying the at most eight places
     * where that can be, reading only the block's header. When exactly one place fits, it is the end (the true end
     * always fits); otherwise, and for any other stream, the blocks are walked.
     */
    static Last lastOfComplete(byte[] d, int len) {
        Last quick = singleBlock(d, len);
        return quick != null ? quick : last(d, len);
    }

    /** The end of a complete one-block dynamic stream by its end-of-block code, or null (see above). */
    static Last singleBlock(byte[] d, int len) {
        if (len < 4) {
            return null;
        }
        Bits in = new Bits(d, len);
        if (in.take(1) != 1 || in.take(2) != 2) {
            return null;
        }
        int literals = in.take(5) + 257;
        int[] lengths = codeLengths(in, literals);
        int eobLength = lengths[256];
        if (eobLength == 0) {
            return null;
        }
        int eob = reversedCode(lengths, literals, 256);
        long streamBits = 8L * len;
        long found = -1;
        for (int padding = 0; padding < 8; padding++) {
            long end = streamBits - padding;
            if (end - eobLength < in.position()) {
                break;
            }
            if (padding > 0 && (d[len - 1] & 0xff) >>> (8 - padding) != 0) {
                continue; // the padding would hold a one bit
            }
            if (bitsAt(d, end - eobLength, eobLength) == eob) {
                if (found >= 0) {
                    return null; // two places fit: walk
                }
                found = end;
            }
        }
        return found < 0 ? null : new Last(0, found);
    }

    /** {@code n} (at most 15) bits of {@code d} from bit {@code at}, least significant first. */
    private static int bitsAt(byte[] d, long at, int n) {
        int v = 0;
        for (int k = 0; k < n; k++) {
            long bit = at + k;
            v |= ((d[(int) (bit >>> 3)] >>> (int) (bit & 7)) & 1) << k;
        }
        return v;
    }

    /** The canonical code of {@code symbol} among the first {@code count} lengths, bit-reversed as sent. */
    private static int reversedCode(int[] lengths, int count, int symbol) {
        int[] perLength = new int[16];
        for (int i = 0; i < count; i++) {
            perLength[lengths[i]]++;
        }
        perLength[0] = 0;
        int code = 0;
        int l = lengths[symbol];
        for (int k = 1; k < l; k++) {
            code = (code + perLength[k]) << 1;
        }
        for (int i = 0; i < symbol; i++) {
            if (lengths[i] == l) {
                code++;
            }
        }
        return Integer.reverse(code) >>> (32 - l);
    }

    /** A dynamic block's literal/length and distance code lengths, read after its literal count. */
    private static int[] codeLengths(Bits in, int literals) {
        int distances = in.take(5) + 1;
        int codeLengthCodes = in.take(4) + 4;
        int[] cl = new int[19];
        for (int i = 0; i < codeLengthCodes; i++) {
            cl[CODE_LENGTH_ORDER[i]] = in.take(3);
        }
        Huffman codeLengths = Huffman.of(cl, 0, 19);
        int[] lengths = new int[literals + distances];
        for (int i = 0; i < lengths.length; ) {
            int sym = codeLengths.decode(in);
            int repeat;
            int value = 0;
            if (sym < 16) {
                lengths[i++] = sym;
                continue;
            } else if (sym == 16) {
                if (i == 0) {
                    throw new IllegalStateException("repeat with no previous length");
                }
                value = lengths[i - 1];
                repeat = 3 + in.take(2);
            } else if (sym == 17) {
                repeat = 3 + in.take(3);
            } else {
                repeat = 11 + in.take(7);
            }
            if (i + repeat > lengths.length) {
                throw new IllegalStateException("code lengths overrun");
            }
            java.util.Arrays.fill(lengths, i, i + repeat, value);
            i += repeat;
        }
        return lengths;
    }

    /**
     * Skips one block's codes up to its end-of-block code. The hot loop: after one refill (at least 48 bits) it
     * decodes literals while a whole code still fits, and a length with its distance when 48 bits remain.
     */
    private static void skipCodes(Bits in, Huffman literals, Huffman distances) {
        while (true) {
            in.refill();
            long buffer = in.buffer;
            int available = in.available();
            int used = 0;
            while (used + 15 <= available) {
                int e = literals.entry(buffer >>> used);
                if (e < 0) {
                    throw new IllegalStateException("invalid Huffman code");
                }
                int sym = e >>> 4;
                if (sym < 256) {
                    used += e & 15;
                    continue;
                }
                if (sym == 256) {
                    in.consume(used + (e & 15));
                    return;
                }
                if (used + 48 > available) {
                    break; // decode this match after the next refill
                }
                if (sym > 285) {
                    throw new IllegalStateException("invalid length symbol " + sym);
                }
                int at = used + (e & 15) + LENGTH_EXTRA[sym - 257];
                int de = distances.entry(buffer >>> at);
                if (de < 0 || de >>> 4 >= 30) {
                    throw new IllegalStateException("invalid distance code");
                }
                used = at + (de & 15) + DISTANCE_EXTRA[de >>> 4];
            }
            in.consume(used);
        }
    }

    /**
     * A canonical Huffman code: a table indexed by the next {@code bits} input bits (least significant first) for
     * codes of up to {@link #PRIMARY} bits, and a bit-by-bit walk (as zlib's puff) for the rare longer ones; a full
     * 15-bit table would cost more to fill, per block, than the block's decoding.
     */
    private static final class Huffman {
        static final int PRIMARY = 10;
        static final int LONG = -2;
        final int[] table; // symbol << 4 | code length; -1 no code; LONG: a longer code starts with these bits
        final int bits;
        private final int[] perLength = new int[16];
        private final int[] symbols; // by code length, then symbol

        private Huffman(int[] lengths, int from, int count) {
            int max = 0;
            for (int i = 0; i < count; i++) {
                int l = lengths[from + i];
                max = Math.max(max, l);
                perLength[l]++;
            }
            perLength[0] = 0;
            bits = Math.min(Math.max(max, 1), PRIMARY);
            table = new int[1 << bits];
            java.util.Arrays.fill(table, -1);
            int[] next = new int[16];
            int[] offset = new int[16];
            int first = 0;
            for (int l = 1; l < 16; l++) {
                first = (first + perLength[l - 1]) << 1;
                next[l] = first;
                offset[l] = offset[l - 1] + perLength[l - 1];
            }
            symbols = new int[offset[15] + perLength[15]];
            for (int i = 0; i < count; i++) {
                int l = lengths[from + i];
                if (l == 0) {
                    continue;
                }
                symbols[offset[l]++] = i;
                int code = next[l]++;
                if (code >= 1 << l) {
                    throw new IllegalStateException("over-subscribed Huffman code");
                }
                int reversed = Integer.reverse(code) >>> (32 - l);
                if (l <= bits) {
                    for (int k = reversed; k < table.length; k += 1 << l) {
                        table[k] = i << 4 | l;
                    }
                } else {
                    table[reversed & (table.length - 1)] = LONG;
                }
            }
        }

        static Huffman of(int[] lengths, int from, int count) {
            return new Huffman(lengths, from, count);
        }

        /** The entry for the code at the start of {@code buffer} (which holds at least 15 valid bits). */
        int entry(long buffer) {
            int e = table[(int) buffer & (table.length - 1)];
            return e == LONG ? slow(buffer) : e;
        }

        private int slow(long buffer) {
            int code = 0;
            int first = 0;
            int index = 0;
            for (int l = 1; l < 16; l++) {
                code |= (int) (buffer >>> (l - 1)) & 1;
                int n = perLength[l];
                if (code - n < first) {
                    return symbols[index + code - first] << 4 | l;
                }
                index += n;
                first = (first + n) << 1;
                code <<= 1;
            }
            return -1;
        }

        int decode(Bits in) {
            in.refill();
            int e = entry(in.buffer);
            if (e < 0) {
                throw new IllegalStateException("invalid Huffman code");
            }
            in.consume(e & 15);
            return e >>> 4;
        }
    }

    /** Reads bits least significant first; past the end it reads zeros, which {@link #checkInside} reports. */
    private static final class Bits {
        private static final java.lang.invoke.VarHandle LONG_LE = java.lang.invoke.MethodHandles
                .byteArrayViewVarHandle(long[].class, java.nio.ByteOrder.LITTLE_ENDIAN);
        private final byte[] d;
        private final int len;
        /** Bits not yet read, lowest first; above {@link #count} it may hold the next bytes again (refill ORs them). */
        long buffer;
        private int count;
        private int next;

        Bits(byte[] d, int len) {
            this.d = d;
            this.len = len;
        }

        long position() {
            return 8L * next - count;
        }

        /** At least 48 valid bits in the buffer (zeros past the end of the stream). */
        void refill() {
            if (count >= 48) {
                return;
            }
            if (next + 8 <= len) {
                buffer |= (long) LONG_LE.get(d, next) << count;
                int bytes = (63 - count) >>> 3;
                next += bytes;
                count += bytes << 3;
                return;
            }
            if (next > len + 16) {
                throw new IllegalStateException("deflate stream truncated");
            }
            while (count <= 56) {
                buffer |= (long) (next < len ? d[next] & 0xff : 0) << count;
                next++;
                count += 8;
            }
        }

        /** Valid bits in the buffer. */
        int available() {
            return count;
        }

        void consume(int n) {
            buffer >>>= n;
            count -= n;
        }

        int peek(int n) {
            refill();
            return (int) (buffer & ((1L << n) - 1));
        }

        int take(int n) {
            int v = peek(n);
            consume(n);
            return v;
        }

        void skip(long n) {
            if (n <= count) {
                consume((int) n);
                return;
            }
            long to = position() + n; // a stored block's bytes: jump
            next = (int) Math.min(to >>> 3, len + 17L);
            buffer = 0;
            count = 0;
            int bits = (int) (to & 7);
            if (bits != 0) {
                refill();
                consume(bits);
            }
        }

        void alignToByte() {
            consume(count & 7);
        }

        void checkInside() {
            if (position() > 8L * len) {
                throw new IllegalStateException("deflate stream truncated");
            }
        }
    }
}
