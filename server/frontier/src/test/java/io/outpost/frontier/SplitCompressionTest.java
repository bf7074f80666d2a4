package io.outpost.frontier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** A held answer compressed in parallel pieces at close is one zlib stream of the whole input, level class kept. */
class SplitCompressionTest {

    @ParameterizedTest
    @CsvSource({"2, 5, 300001", "3, 5, 949000", "2, 9, 262144", "4, 1, 1000003", "2, 0, 400000"})
    void piecesJoinIntoOneZlibStreamOfTheWholeInput(int n, int level, int len) throws Exception {
        assumeTrue(LibDeflate.get().isPresent(), "libdeflate.so.0 not loadable here (not installed, or Java 21)");
        byte[] in = records(len + 17, n);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            ByteArrayOutputStream z = new ByteArrayOutputStream();
            for (byte[] part : SplitCompression.compress(LibDeflate.get().orElseThrow(), in, len, level, n, pool)) {
                z.write(part);
            }
            byte[] stream = z.toByteArray();
            assertThat(stream[1]).isEqualTo(ZlibPieces.header(level)[1]);
            // the JDK's inflater checks the Adler-32 and that nothing follows the stream
            assertThat(ZlibStreams.inflate(stream, len)).isEqualTo(Arrays.copyOf(in, len));
        } finally {
            pool.shutdownNow();
        }
    }

    @ParameterizedTest
    @CsvSource({"2, 5, 949000", "3, 1, 300001", "2, 4, 40000"})
    void igzipPiecesSharedByThreadsJoinIntoOneStream(int n, int level, int len) throws Exception {
        assumeTrue(Igzip.get().isPresent(), "libisal.so.2 not loadable here (not installed, or Java 21)");
        byte[] in = records(len, n);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            List<byte[]> parts = SplitCompression.compress(Igzip.get().orElseThrow(), in, len, level, n, pool);
            assertThat(parts.size() - 2).as("pieces").isEqualTo(
                    Math.max(n, Math.min(n * SplitCompression.PIECES_PER_THREAD, len / (SplitCompression.MIN_PIECE / 4))));
            assertThat(ZlibStreams.inflate(ZlibPieces.concat(parts), len)).isEqualTo(in);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void helpersThatStartOnlyAfterTheCallerFinishedFindNothingLeft() throws Exception {
        assumeTrue(Igzip.get().isPresent(), "libisal.so.2 not loadable here (not installed, or Java 21)");
        byte[] in = records(600_000, 9);
        List<Runnable> late = new ArrayList<>();
        List<byte[]> parts = SplitCompression.compress(Igzip.get().orElseThrow(), in, in.length, 5, 3, late::add);
        byte[] before = in.clone();
        assertThat(late).hasSize(2);
        late.forEach(Runnable::run); // the helpers start now: every piece is taken, they return at once
        assertThat(in).isEqualTo(before);
        assertThat(ZlibStreams.inflate(ZlibPieces.concat(parts), in.length)).isEqualTo(in);
    }

    @Test
    void smallAnswersAndBusyMachinesAreCompressedWhole() {
        assertThat(SplitCompression.pieces(100_000, 2)).isEqualTo(1);
        assertThat(SplitCompression.pieces(949_000, 1)).isEqualTo(1);
        assertThat(SplitCompression.pieces(949_000, 2)).isEqualTo(2);
        assertThat(SplitCompression.pieces(300_000, 8)).isEqualTo(2);
        assertThat(SplitCompression.pieces(949_000, 0)).isEqualTo(1);
    }

    @Test
    void coresLeftCountTheCallersOwnWorkAsItsOwn() {
        assertThat(IdleCores.left(2, 1.2, 1)).isEqualTo(2); // one answer computing, little else: split in two
        assertThat(IdleCores.left(2, 0.1, 1)).isEqualTo(2);
        assertThat(IdleCores.left(2, 1.6, 1)).isEqualTo(1); // more than half a core busy elsewhere: whole
        assertThat(IdleCores.left(2, 2.6, 1)).isZero();
        assertThat(IdleCores.left(2, 14, 1)).isZero();
        assertThat(IdleCores.left(8, 3, 2)).isEqualTo(7);
        assertThat(IdleCores.left(4, -1, 1)).isEqualTo(4); // load unknown
    }

    /** Frontier-like records: a fixed part (long matches) and random printable text. */
    private static byte[] records(int len, int seed) {
        Random r = new Random(seed);
        byte[] out = new byte[len];
        for (int i = 0; i < len; i++) {
            out[i] = i % 80 < 30 ? (byte) "\u0006\u0000\u0000\u00139223372036854775807\u0007"
                    .charAt(i % 80 % 24) : (byte) ('!' + r.nextInt(94));
        }
        return out;
    }
}
