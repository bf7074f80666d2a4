package io.outpost.frontier.encode;

/**
 * The decimal digits of a {@code long}, as {@link Long#toString(long)} writes them, straight into a byte array:
 * the length from the bit length and a table of powers of ten, the digits two at a time. Integer columns read in
 * the binary format are written this way for every row (IOV keys run to 19 digits), where a division per digit
 * showed up at a fifth of a computed answer's CPU.
 */
final class DecimalDigits {
    private static final long[] POWERS = new long[19];
    /** "00" to "99". */
    private static final byte[] PAIRS = new byte[200];

    static {
        long p = 1;
        for (int i = 0; i < POWERS.length; i++) {
            POWERS[i] = p;
            p *= 10;
        }
        for (int i = 0; i < 100; i++) {
            PAIRS[2 * i] = (byte) ('0' + i / 10);
            PAIRS[2 * i + 1] = (byte) ('0' + i % 10);
        }
    }

    private DecimalDigits() {
    }

    /** Characters of {@code Long.toString(v)}. */
    static int length(long v) {
        if (v < 0) {
            return v == Long.MIN_VALUE ? 20 : 1 + length(-v);
        }
        if (v == 0) {
            return 1;
        }
        int guess = ((64 - Long.numberOfLeadingZeros(v)) * 1233) >>> 12; // bits × log10(2), never too high
        return v >= POWERS[guess] ? guess + 1 : guess;
    }

    /** Writes {@code Long.toString(v)} so that it ends just before {@code end}; its start is {@code end - length(v)}. */
    static void write(long v, byte[] buf, int end) {
        int at = end;
        long n = v < 0 ? v : -v; // negative, so that Long.MIN_VALUE fits
        while (n <= Integer.MIN_VALUE) {
            long q = n / 100;
            int r = (int) (q * 100 - n);
            n = q;
            buf[--at] = PAIRS[2 * r + 1];
            buf[--at] = PAIRS[2 * r];
        }
        int m = (int) n;
        while (m <= -100) {
            int q = m / 100;
            int r = q * 100 - m;
            m = q;
            buf[--at] = PAIRS[2 * r + 1];
            buf[--at] = PAIRS[2 * r];
        }
        if (m <= -10) {
            buf[--at] = PAIRS[-2 * m + 1];
            buf[--at] = PAIRS[-2 * m];
        } else {
            buf[--at] = (byte) ('0' - m);
        }
        if (v < 0) {
            buf[--at] = '-';
        }
    }
}
