package io.outpost.frontier.encode;

import java.util.Optional;

/**
 * ISA-L's igzip as Java 21 sees it: never present. The binding itself ({@code src/main/java22}) uses the Foreign
 * Function &amp; Memory API, final only since Java 22, and is the Java 22 version of this class in the multi-release
 * jar; on Java 21 answers are compressed by java.util.zip.
 */
final class Igzip {
    /** zlib levels igzip would serve: the "fastest" and "fast" classes. */
    static final int ZLIB_LEVEL_UP_TO = 5;

    private Igzip() {
    }

    /** Empty: no binding before Java 22. */
    static Optional<Igzip> get() {
        return Optional.empty();
    }

    /** Never called: {@link #get()} is empty. */
    byte[] zlibCompress(byte[] in, int len, int level) {
        throw new UnsupportedOperationException("igzip needs Java 22 or later");
    }
}
