package io.outpost.client;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.luben.zstd.ZstdDecompressCtx;
import io.outpost.client.testing.WireEncoder;
import io.outpost.wire.AnswerDecoder;
import io.outpost.wire.Column;
import io.outpost.wire.ColumnType;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.Iterator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.zip.InflaterInputStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Decoding throughput of an atlasPrompt-like answer (100k rows, a 1000-character random string payload, ~100 MB of
 * content) against decompressing the same body alone (zlib: inflating; zstd: {@code ZSTD_decompressStream}), which
 * is the floor any decoder of that body pays. Run with {@code ./mvnw -B -o -Pbenchmark test -pl client-java};
 * figures go to docs/benchmarks.md, "Java client decoding".
 */
@Tag("benchmark")
class DecodeBenchmarkTest {
    static final int ROWS = 100_000;
    static final int PAYLOAD_CHARS = 1000;
    static final int ROUNDS = 5;

    @ParameterizedTest(name = "codec {0}")
    @ValueSource(ints = {WireEncoder.CODEC_ZLIB, WireEncoder.CODEC_ZSTD})
    void decodingKeepsUpWithDecompression(int codec) throws IOException {
        byte[] answer = atlasPromptAnswer(codec);
        String name = codec == WireEncoder.CODEC_ZSTD ? "zstd" : "zlib";
        long contentBytes = decompressOnly(answer); // warm-up, and the content size
        decode(answer);
        long bestDecompress = Long.MAX_VALUE;
        long bestDecode = Long.MAX_VALUE;
        for (int round = 0; round < ROUNDS; round++) {
            long t0 = System.nanoTime();
            long decompressed = decompressOnly(answer);
            long t1 = System.nanoTime();
            long rows = decode(answer);
            long t2 = System.nanoTime();
            assertThat(decompressed).isEqualTo(contentBytes);
            assertThat(rows).isEqualTo(ROWS);
            bestDecompress = Math.min(bestDecompress, t1 - t0);
            bestDecode = Math.min(bestDecode, t2 - t1);
        }
        double mb = contentBytes / 1e6;
        double decompressMBs = mb / (bestDecompress / 1e9);
        double decodeMBs = mb / (bestDecode / 1e9);
        double ratio = decodeMBs / decompressMBs;
        System.out.printf("Java client decoding, %s: answer %.1f MB on the wire, %.1f MB content, %d rows%n",
                name, answer.length / 1e6, mb, ROWS);
        System.out.printf("  %s decompress only : %7.1f MB/s (%d ms)%n", name, decompressMBs,
                bestDecompress / 1_000_000);
        System.out.printf("  %s full decode     : %7.1f MB/s (%d ms, %.0f rows/s)%n", name, decodeMBs,
                bestDecode / 1_000_000, ROWS / (bestDecode / 1e9));
        // zstd decompresses ~4x faster than zlib inflates, so the decoder's own work (CRC-32, UTF-8 Strings, row
        // objects) weighs more against it: a lower floor for zstd, whose full decode is still 2-3x zlib's.
        double target = codec == WireEncoder.CODEC_ZSTD ? 0.3 : 0.5;
        System.out.printf("  %s ratio decode/decompress: %.2f (target >= %.1f)%n", name, ratio, target);
        assertThat(ratio).as("decode/decompress throughput ratio").isGreaterThanOrEqualTo(target);
    }

    /** Content bytes decompressed, into a 64 KiB (zlib) or 128 KiB (zstd, one block) buffer that is discarded. */
    private static long decompressOnly(byte[] answer) throws IOException {
        int bodyLen = (int) ByteBuffer.wrap(answer, 8, 8).getLong();
        long n = 0;
        if (answer[5] == WireEncoder.CODEC_ZSTD) {
            try (ZstdDecompressCtx ctx = new ZstdDecompressCtx()) {
                ByteBuffer src = ByteBuffer.wrap(answer, 16, bodyLen);
                ByteBuffer dst = ByteBuffer.allocate(1 << 17);
                for (boolean done = false; !done; ) {
                    dst.clear();
                    done = ctx.decompressByteBufferStream(dst, src);
                    n += dst.position();
                }
            }
            return n;
        }
        InputStream in = new InflaterInputStream(new ByteArrayInputStream(answer, 16, bodyLen),
                new java.util.zip.Inflater(), 1 << 16);
        byte[] buf = new byte[1 << 16];
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

    static byte[] atlasPromptAnswer(int codec) {
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
                .codec(codec).encode(rows, ROWS, out);
        return out.toByteArray();
    }
}
