package io.outpost.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.client.internal.AnswerDecoder;
import io.outpost.client.testing.WireEncoder;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Iterator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.zip.InflaterInputStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Decoding throughput of an atlasPrompt-like answer (100k rows, a 1000-character random string payload, ~100 MB of
 * content) against inflating the same bytes alone, which is the floor any decoder of a zlib body pays. Run with
 * {@code ./mvnw -B -o -Pbenchmark test -pl client-java}; figures go to docs/benchmarks.md, "Java client decoding".
 */
@Tag("benchmark")
class DecodeBenchmarkTest {
    static final int ROWS = 100_000;
    static final int PAYLOAD_CHARS = 1000;
    static final int ROUNDS = 5;

    @Test
    void decodingKeepsUpWithInflation() throws IOException {
        byte[] answer = atlasPromptAnswer();
        long contentBytes = inflateOnly(answer); // warm-up, and the content size
        long bestInflate = Long.MAX_VALUE;
        long bestDecode = Long.MAX_VALUE;
        for (int round = 0; round < ROUNDS; round++) {
            long t0 = System.nanoTime();
            inflateOnly(answer);
            long t1 = System.nanoTime();
            long rows = decode(answer);
            long t2 = System.nanoTime();
            assertThat(rows).isEqualTo(ROWS);
            bestInflate = Math.min(bestInflate, t1 - t0);
            bestDecode = Math.min(bestDecode, t2 - t1);
        }
        double mb = contentBytes / 1e6;
        double inflateMBs = mb / (bestInflate / 1e9);
        double decodeMBs = mb / (bestDecode / 1e9);
        double ratio = decodeMBs / inflateMBs;
        System.out.printf("Java client decoding: answer %.1f MB on the wire, %.1f MB content, %d rows%n",
                answer.length / 1e6, mb, ROWS);
        System.out.printf("  inflate only : %7.1f MB/s (%d ms)%n", inflateMBs, bestInflate / 1_000_000);
        System.out.printf("  full decode  : %7.1f MB/s (%d ms, %.0f rows/s)%n", decodeMBs, bestDecode / 1_000_000,
                ROWS / (bestDecode / 1e9));
        System.out.printf("  ratio decode/inflate: %.2f (target >= 0.5)%n", ratio);
        assertThat(ratio).as("decode/inflate throughput ratio").isGreaterThanOrEqualTo(0.5);
    }

    /** Content bytes inflated. */
    private static long inflateOnly(byte[] answer) throws IOException {
        long bodyLen = java.nio.ByteBuffer.wrap(answer, 8, 8).getLong();
        InputStream in = new InflaterInputStream(new ByteArrayInputStream(answer, 16, (int) bodyLen),
                new java.util.zip.Inflater(), 1 << 16);
        byte[] buf = new byte[1 << 16];
        long n = 0;
        for (int r; (r = in.read(buf)) > 0; ) {
            n += r;
        }
        return n;
    }

    private static long decode(byte[] answer) throws IOException {
        long rows = 0;
        try (AnswerDecoder d = new AnswerDecoder(new ByteArrayInputStream(answer), answer.length)) {
            d.readHeader();
            for (Object[] v; (v = d.nextRow()) != null; ) {
                if (((String) v[3]).length() != PAYLOAD_CHARS) {
                    throw new AssertionError();
                }
                rows++;
            }
        }
        return rows;
    }

    static byte[] atlasPromptAnswer() {
        SplittableRandom random = new SplittableRandom(42);
        String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
        Iterator<Object[]> rows = new Iterator<>() {
            int i;

            @Override
            public boolean hasNext() {
                return i < ROWS;
            }

            @Override
            public Object[] next() {
                char[] s = new char[PAYLOAD_CHARS];
                for (int k = 0; k < s.length; k++) {
                    s[k] = alphabet.charAt(random.nextInt(alphabet.length()));
                }
                long channel = i % 1000;
                long since = (i / 1000) * 300_000_000_000L + channel * 3_000_000L;
                i++;
                return new Object[] {channel, since, since + 300_000_000_000L, new String(s)};
            }
        };
        ByteArrayOutputStream out = new ByteArrayOutputStream(90 << 20);
        WireEncoder.iovs("/ATLAS/Prompt/F000", "HEAD", List.of(new Column("payload", ColumnType.STRING4K)))
                .encode(rows, ROWS, out);
        return out.toByteArray();
    }
}
