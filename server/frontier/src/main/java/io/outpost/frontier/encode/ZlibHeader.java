package io.outpost.frontier.encode;

/** The two header bytes of a zlib stream (RFC 1950) as zlib writes them for a level. */
final class ZlibHeader {
    private ZlibHeader() {
    }

    /** Deflate with a 32 KB window, zlib's level class of {@code level} (0-9), and the check bits. */
    static byte[] of(int level) {
        int levelClass = level < 2 ? 0 : level < 6 ? 1 : level == 6 ? 2 : 3;
        int cmf = 0x78;
        int flg = levelClass << 6;
        flg += 31 - ((cmf << 8 | flg) % 31);
        return new byte[] {(byte) cmf, (byte) flg};
    }
}
