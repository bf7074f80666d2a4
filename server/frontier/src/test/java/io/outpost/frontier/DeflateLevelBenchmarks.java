package io.outpost.frontier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * libdeflate's levels 2-5 (all of zlib's level class 1, "fast", which a requested level 5 belongs to) on the
 * likeLuis1iov record stream of {@link FrontierBenchmarkTest}: time and size side by side in one run.
 */
@Tag("benchmark")
class DeflateLevelBenchmarks {
    private static final int REPEATS = 40;

    @Test
    void levelsOfTheFastClassOnTheLikeLuisRecordStream() throws Exception {
        assumeTrue(LibDeflate.get().isPresent(), "libdeflate.so.0 not loadable here");
        LibDeflate lib = LibDeflate.get().orElseThrow();
        byte[] records = likeLuisRecords();
        int[] levels = {2, 3, 4, 5};
        long[][] nanos = new long[levels.length][REPEATS];
        int[] sizes = new int[levels.length];
        for (int warm = 0; warm < 5; warm++) {
            for (int level : levels) {
                lib.zlibCompress(records, records.length, level);
            }
        }
        for (int r = 0; r < REPEATS; r++) {
            for (int i = 0; i < levels.length; i++) {
                long t0 = System.nanoTime();
                byte[] z = lib.zlibCompress(records, records.length, levels[i]);
                nanos[i][r] = System.nanoTime() - t0;
                sizes[i] = z.length;
                if (r == 0) {
                    assertThat(ZlibStreams.inflate(z, records.length)).isEqualTo(records);
                    assertThat((z[1] & 0xff) >> 6).isEqualTo(1);
                }
            }
        }
        double five = median(nanos[levels.length - 1]);
        for (int i = 0; i < levels.length; i++) {
            System.out.printf("BENCH libdeflate level %d on the likeLuis1iov record stream (%d bytes): %.2f ms, %.2f of "
                            + "level 5's time; %d bytes, %.3f of level 5's size%n", levels[i], records.length,
                    median(nanos[i]) / 1e6, median(nanos[i]) / five, sizes[i], sizes[i] / (double) sizes[levels.length - 1]);
        }
    }

    @Test
    void heldAnswerSplitInTwoAtCloseVersusOneCall() throws Exception {
        assumeTrue(LibDeflate.get().isPresent(), "libdeflate.so.0 not loadable here");
        List<NativeDeflate> libs = new ArrayList<>(List.of(LibDeflate.get().orElseThrow()));
        Igzip.get().ifPresent(libs::add);
        byte[] records = likeLuisRecords();
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(2);
        try {
            for (NativeDeflate lib : libs) {
                long[] one = new long[REPEATS];
                long[] two = new long[REPEATS];
                int oneSize = 0;
                int twoSize = 0;
                for (int r = -5; r < REPEATS; r++) { // five rounds of warm-up
                    long t0 = System.nanoTime();
                    oneSize = lib.zlibCompress(records, records.length, 5).length;
                    long t1 = System.nanoTime();
                    twoSize = 0;
                    for (byte[] part : SplitCompression.compress(lib, records, records.length, 5, 2, pool)) {
                        twoSize += part.length;
                    }
                    long t2 = System.nanoTime();
                    if (r >= 0) {
                        one[r] = t1 - t0;
                        two[r] = t2 - t1;
                    }
                }
                System.out.printf("BENCH likeLuis1iov record stream (%d bytes) at level 5 by %s: one call %.2f ms, split "
                                + "in two at close %.2f ms (%.2f of one call); %d against %d bytes%n", records.length,
                        lib.getClass().getSimpleName(), median(one) / 1e6, median(two) / 1e6, median(two) / median(one),
                        twoSize, oneSize);
                assertThat(twoSize).isLessThan(oneSize + oneSize / 100);
            }
        } finally {
            pool.shutdownNow();
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
