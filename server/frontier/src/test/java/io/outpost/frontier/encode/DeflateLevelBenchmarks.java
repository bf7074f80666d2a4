package io.outpost.frontier.encode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * igzip against java.util.zip on the likeLuis1iov record stream of FrontierBenchmarkTest, whole answer in one call,
 * at every level igzip serves: time and size side by side in one run, every output inflated back.
 */
@Tag("benchmark")
class DeflateLevelBenchmarks {
    private static final int REPEATS = 40;

    @Test
    void igzipAgainstJavaUtilZipOnTheLikeLuisRecordStream() throws Exception {
        assumeTrue(Igzip.get().isPresent(), "libisal.so.2 not loadable here (not installed, or Java 21)");
        Igzip igzip = Igzip.get().orElseThrow();
        byte[] records = likeLuisRecords();
        for (int level = 1; level <= Igzip.ZLIB_LEVEL_UP_TO; level++) {
            long[] nativeNanos = new long[REPEATS];
            long[] jdkNanos = new long[REPEATS];
            int nativeSize = 0;
            int jdkSize = 0;
            for (int r = -5; r < REPEATS; r++) { // five rounds of warm-up
                long t0 = System.nanoTime();
                byte[] n = igzip.zlibCompress(records, records.length, level);
                long t1 = System.nanoTime();
                byte[] j = AnswerDeflate.withJdk(records, records.length, level);
                long t2 = System.nanoTime();
                if (r < 0) {
                    assertThat(ZlibStreams.inflate(n, records.length)).isEqualTo(records);
                    assertThat(ZlibStreams.inflate(j, records.length)).isEqualTo(records);
                } else {
                    nativeNanos[r] = t1 - t0;
                    jdkNanos[r] = t2 - t1;
                }
                nativeSize = n.length;
                jdkSize = j.length;
            }
            System.out.printf("BENCH likeLuis1iov record stream (%d bytes) at level %d: igzip %.2f ms, java.util.zip "
                            + "%.2f ms, ratio %.2f; %d against %d bytes (%.3f)%n", records.length, level,
                    median(nativeNanos) / 1e6, median(jdkNanos) / 1e6, median(nativeNanos) / median(jdkNanos),
                    nativeSize, jdkSize, nativeSize / (double) jdkSize);
        }
    }

    /** The record stream of FrontierBenchmarkTest's answer: header record, then 10,000 rows of four columns. */
    static byte[] likeLuisRecords() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (String s : new String[] {"CHANNEL_ID", "NUMBER(20)", "IOV_SINCE", "NUMBER(20)", "IOV_UNTIL", "NUMBER(20)", "S", "VARCHAR2"}) {
            string(out, s);
        }
        out.write(BlobEncoder.EOR);
        Random r = new Random(3);
        for (int ch = 0; ch < 10_000; ch++) {
            StringBuilder s = new StringBuilder();
            for (int i = 0; i < 50; i++) {
                s.append((char) ('!' + r.nextInt(94)));
            }
            string(out, Integer.toString(ch));
            string(out, "0");
            string(out, Long.toString(Long.MAX_VALUE));
            string(out, s.toString());
            out.write(BlobEncoder.EOR);
        }
        return out.toByteArray();
    }

    private static void string(ByteArrayOutputStream out, String s) {
        byte[] b = s.getBytes(StandardCharsets.US_ASCII);
        out.write(BlobEncoder.ARRAY_BYTE);
        out.write(b.length >>> 24);
        out.write(b.length >>> 16);
        out.write(b.length >>> 8);
        out.write(b.length);
        out.writeBytes(b);
    }

    private static double median(long[] values) {
        long[] v = values.clone();
        java.util.Arrays.sort(v);
        return v[v.length / 2];
    }
}
