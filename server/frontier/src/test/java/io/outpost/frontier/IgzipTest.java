package io.outpost.frontier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Answers compressed by ISA-L's igzip inflate to the same records as zlib's, whole or in pieces, with the header's
 * level class of the level asked for. The cases need the system library (package libisal2, in the packages the
 * {@code outpost} script installs) on Java 22 or later.
 */
class IgzipTest {

    private static Igzip lib() {
        assumeTrue(Igzip.get().isPresent(), "libisal.so.2 not loadable here (not installed, or Java 21)");
        return Igzip.get().orElseThrow();
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 5})
    void zlibStreamInflatesToTheInputWithTheLevelClassAskedFor(int level) throws Exception {
        byte[] in = LibDeflateTest.randomText(300_000, level);
        byte[] z = lib().zlibCompress(in, in.length, level);
        assertThat(ZlibStreams.inflate(z, in.length)).isEqualTo(in);
        assertThat(z[0]).isEqualTo((byte) 0x78);
        assertThat((z[1] & 0xff) >> 6).isEqualTo(level < 2 ? 0 : 1);
        assertThat(((z[0] & 0xff) << 8 | (z[1] & 0xff)) % 31).isZero();
    }

    @Test
    void incompressibleAndEmptyInputsFitTheirBuffers() throws Exception {
        byte[] noise = new byte[BlobEncoder.WHOLE_LIMIT];
        new Random(7).nextBytes(noise);
        for (int len : new int[] {0, 1, 65_536, 65_537, noise.length}) {
            byte[] z = lib().zlibCompress(noise, len, 5);
            assertThat(ZlibStreams.inflate(z, len)).isEqualTo(java.util.Arrays.copyOf(noise, len));
        }
    }

    @Test
    void fullyFlushedPiecesJoinWithoutAWalk() throws Exception {
        Igzip lib = lib();
        byte[] in = LibDeflateTest.randomText(200_000, 4);
        for (int i = 0; i < in.length; i += 7) {
            in[i] = 'x'; // some matches, so the pieces hold codes of both kinds
        }
        byte[] piece = lib.piece(in, 0, 100_000, 5, false).deflate();
        assertThat(java.util.Arrays.copyOfRange(piece, piece.length - 4, piece.length))
                .as("an empty stored block ends the piece").containsExactly(0, 0, 0xff, 0xff);
        java.util.zip.Adler32 adler = new java.util.zip.Adler32();
        adler.update(in);
        byte[] joined = ZlibPieces.concat(List.of(ZlibPieces.header(5), piece,
                lib.piece(in, 100_000, 0, 5, false).deflate(), lib.deflateCompress(in, 100_000, 100_000, 5),
                ZlibPieces.trailer(adler.getValue())));
        assertThat(ZlibStreams.inflate(joined, in.length)).isEqualTo(in);
    }

    @Test
    void keptWorkersServeSmallerAndBiggerInputsInTurnFromManyThreads() throws Exception {
        Igzip lib = lib();
        int[] sizes = {100, 70_000, 5, 1_500_000, 65_536, 65_537, 0, 300_000};
        ExecutorService pool = Executors.newFixedThreadPool(6);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 6; t++) {
                int seed = t;
                done.add(pool.submit(() -> {
                    for (int round = 0; round < 3; round++) {
                        for (int size : sizes) {
                            byte[] in = LibDeflateTest.randomText(size, seed * 100 + round);
                            byte[] z = round == 2 ? ZlibPieces.concat(List.of(ZlibPieces.header(1),
                                    lib.deflateCompress(in, 0, size, 1), ZlibPieces.trailer(adler(in))))
                                    : lib.zlibCompress(in, in.length, 1 + round);
                            assertThat(ZlibStreams.inflate(z, in.length)).isEqualTo(in);
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 10_000, 200_000, BlobEncoder.WHOLE_LIMIT + 300_000})
    void answersWholeAndInPiecesCarryTheSameRecordsAsZlib(int payloadBytes) throws Exception {
        Igzip lib = lib();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            LibDeflateTest.Answer viaZlib = LibDeflateTest.encode(sink -> new BlobEncoder(sink, 5, pool, null), payloadBytes);
            byte[] records = ZlibStreams.inflate(viaZlib.compressed(), (int) viaZlib.fullSize());
            for (boolean inPieces : new boolean[] {false, true}) {
                LibDeflateTest.Answer a = LibDeflateTest.encode(sink -> new BlobEncoder(sink, 5, pool, lib, inPieces),
                        payloadBytes);
                assertThat(ZlibStreams.inflate(a.compressed(), (int) a.fullSize())).as("in pieces: " + inPieces)
                        .isEqualTo(records);
                assertThat(a.md5()).isEqualTo(
                        HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(a.compressed())));
                assertThat(a.compressed()[1]).isEqualTo(viaZlib.compressed()[1]); // the level class of 5
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void fastLevelsGoToIgzipTheOthersAndTheOverrideToLibdeflate() {
        lib();
        assumeTrue(LibDeflate.get().isPresent(), "libdeflate.so.0 not loadable here");
        for (int level = 0; level <= 9; level++) {
            assertThat(NativeDeflate.forLevel(level).orElseThrow()).as("level " + level)
                    .isInstanceOf(level >= 1 && level <= 5 ? Igzip.class : LibDeflate.class);
        }
        System.setProperty(NativeDeflate.LIBRARY_PROPERTY, "libdeflate");
        try {
            assertThat(NativeDeflate.forLevel(5).orElseThrow()).isInstanceOf(LibDeflate.class);
            assertThat(BlobEncoder.deflateLibrary(5)).isEqualTo("libdeflate");
        } finally {
            System.clearProperty(NativeDeflate.LIBRARY_PROPERTY);
        }
        assertThat(BlobEncoder.deflateLibrary(5)).isEqualTo("igzip");
    }

    private static long adler(byte[] in) {
        java.util.zip.Adler32 a = new java.util.zip.Adler32();
        a.update(in);
        return a.getValue();
    }
}
