package io.outpost.frontier.encode;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.zip.Inflater;

/** Test helper: inflates a whole zlib stream as an upstream Frontier client would, refusing a truncated one. */
final class ZlibStreams {
    private ZlibStreams() {
    }

    /** The bytes of the zlib stream {@code z}, expected to hold at most {@code size} bytes and nothing after its end. */
    static byte[] inflate(byte[] z, int size) throws Exception {
        Inflater inf = new Inflater();
        try {
            inf.setInput(z);
            byte[] out = new byte[size + 1];
            int n = 0;
            while (!inf.finished()) {
                int k = inf.inflate(out, n, out.length - n);
                if (k == 0 && !inf.finished() && (inf.needsInput() || inf.needsDictionary() || n == out.length)) {
                    throw new AssertionError("truncated zlib stream, or more than " + size + " bytes");
                }
                n += k;
            }
            assertThat(inf.getRemaining()).isZero();
            return Arrays.copyOf(out, n);
        } finally {
            inf.end();
        }
    }
}
