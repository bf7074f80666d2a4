package io.outpost.frontier.encode;

import java.util.Arrays;
import java.util.Optional;
import java.util.zip.Deflater;
import org.slf4j.LoggerFactory;

/**
 * The zlib stream of a whole answer's record stream, in one call: by ISA-L's igzip where it loads (zlib levels 1 to
 * 5, Java 22 or later with the library installed: {@link Igzip}), else by java.util.zip. Nothing depends on the
 * machine's load or on other answers, so the same records at the same level always give the same bytes.
 */
public final class AnswerDeflate {
    /**
     * System property: {@code jdk} compresses answers with java.util.zip even where igzip is present (to compare the
     * two side by side).
     */
    public static final String PROPERTY = "outpost.frontier.deflate";

    private AnswerDeflate() {
    }

    /** The zlib stream of {@code in[0, len)} at zlib's {@code level} (0-9). */
    static byte[] compress(byte[] in, int len, int level) {
        Optional<Igzip> igzip = igzipFor(level);
        if (igzip.isPresent()) {
            try {
                return igzip.get().zlibCompress(in, len, level);
            } catch (RuntimeException e) { // a failed native call costs this answer java.util.zip's time, no more
                LoggerFactory.getLogger(AnswerDeflate.class).warn("igzip failed, answer compressed by java.util.zip: {}",
                        e.toString());
            }
        }
        return withJdk(in, len, level);
    }

    /** The zlib stream of {@code in[0, len)} by java.util.zip. */
    static byte[] withJdk(byte[] in, int len, int level) {
        Deflater d = new Deflater(level);
        try {
            d.setInput(in, 0, len);
            d.finish();
            byte[] out = new byte[Math.max(64, len / 3)];
            int n = 0;
            while (!d.finished()) {
                if (n == out.length) {
                    out = Arrays.copyOf(out, out.length * 2);
                }
                n += d.deflate(out, n, out.length - n);
            }
            return Arrays.copyOf(out, n);
        } finally {
            d.end();
        }
    }

    /** The library that compresses whole answers at {@code level} in this JVM: {@code igzip} or {@code java.util.zip}. */
    public static String library(int level) {
        return igzipFor(level).isPresent() ? "igzip" : "java.util.zip";
    }

    private static Optional<Igzip> igzipFor(int level) {
        if (level < 1 || level > Igzip.ZLIB_LEVEL_UP_TO || "jdk".equals(System.getProperty(PROPERTY))) {
            return Optional.empty();
        }
        return Igzip.get();
    }
}
