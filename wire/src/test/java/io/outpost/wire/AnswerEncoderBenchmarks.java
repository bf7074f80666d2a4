package io.outpost.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The encoder alone on a likeLuis1iov answer from encoded rows (10,000 rows of channel, since, until and a random
 * 50-letter string, appended as one slice, zstd level 1), process CPU per answer (one thread encodes): buffers grown
 * from 16 KB (the default) against buffers sized by {@link AnswerEncoder#expect}, and the same without compression
 * (codec 0) to show what is not zstd. Modes take turns in 1-second rounds; every answer's bytes are compared with
 * the first's. Run with {@code ./mvnw -B -ntp -Pbenchmark test -pl wire -Dtest=AnswerEncoderBenchmarks}.
 */
@Tag("benchmark")
class AnswerEncoderBenchmarks {
    private static final List<Column> COLUMNS = List.of(new Column("channel", ColumnType.UINT32),
            new Column("since", ColumnType.UINT63), new Column("until", ColumnType.UINT63),
            new Column("payload", ColumnType.STRING255));
    private static final int ROUNDS = 5;

    private record Mode(String name, Codec codec, boolean sized) {
    }

    @Test
    void sizedBuffersAgainstGrown() {
        Random rnd = new Random(47);
        EncodedRows rows = new EncodedRows(COLUMNS, 1 << 20);
        for (int ch = 0; ch < 10_000; ch++) {
            StringBuilder s = new StringBuilder();
            for (int k = 0; k < 50; k++) {
                s.append((char) ('a' + rnd.nextInt(26)));
            }
            rows.add(new Object[] {(long) ch, 1_700_000_000_000_000_000L, Long.MAX_VALUE, s.toString()});
        }
        byte[] bytes = rows.toArray();
        List<Mode> modes = List.of(new Mode("zstd 1, grown", Codec.ZSTD, false),
                new Mode("zstd 1, sized", Codec.ZSTD, true), new Mode("codec 0, grown", Codec.NONE, false),
                new Mode("codec 0, sized", Codec.NONE, true));
        byte[][] expected = new byte[modes.size()][];
        for (int m = 0; m < modes.size(); m++) {
            expected[m] = answer(modes.get(m), bytes, 0);
        }
        assertThat(expected[1]).isEqualTo(expected[0]);
        assertThat(expected[3]).isEqualTo(expected[2]);
        for (int m = 0; m < modes.size(); m++) { // warm-up
            round(modes.get(m), bytes, expected[m]);
        }
        double[] ms = new double[modes.size()];
        for (int r = 0; r < ROUNDS; r++) {
            for (int k = 0; k < modes.size(); k++) {
                int m = (k + r) % modes.size();
                ms[m] += round(modes.get(m), bytes, expected[m]) / ROUNDS;
            }
        }
        for (int m = 0; m < modes.size(); m++) {
            System.out.printf("BENCHMARK encoder alone, likeLuis1iov from encoded rows (%d B of rows -> %d B), %s: "
                    + "%.3f ms process CPU per answer%n", bytes.length, expected[m].length, modes.get(m).name(), ms[m]);
        }
        System.out.printf("BENCHMARK encoder alone: sized/grown CPU ratio zstd %.3f, codec 0 %.3f%n", ms[1] / ms[0],
                ms[3] / ms[2]);
    }

    /** One mode for a second; CPU ms per answer. */
    private static double round(Mode mode, byte[] rows, byte[] expected) {
        long cpu0 = cpuNanos();
        long end = System.nanoTime() + 1_000_000_000L;
        int n = 0;
        while (System.nanoTime() < end) {
            byte[] a = answer(mode, rows, expected.length);
            if (!Arrays.equals(a, expected)) {
                throw new AssertionError(mode.name() + ": another answer");
            }
            n++;
        }
        return (cpuNanos() - cpu0) / 1e6 / n;
    }

    /** The process's CPU time (java.management is not read by this module): GC and JIT count too. */
    private static long cpuNanos() {
        return ProcessHandle.current().info().totalCpuDuration().orElseThrow().toNanos();
    }

    private static byte[] answer(Mode mode, byte[] rows, int likeAnswer) {
        AnswerEncoder e = new AnswerEncoder(mode.codec(), 1);
        if (mode.sized()) {
            e.expect(rows.length, likeAnswer > 0 ? likeAnswer : rows.length);
        }
        e.begin(AnswerKind.IOVS, "/LOAD/likeLuis1iov", "HEAD", 0, Long.MAX_VALUE, COLUMNS);
        e.encodedRows(rows, 0, rows.length, 10_000);
        return e.finish();
    }
}
