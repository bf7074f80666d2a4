package io.outpost.frontier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Answers compressed by libdeflate are zlib streams that inflate to the same record stream as zlib's, with the
 * header's level class of the requested level; answers too big to hold go through zlib. The libdeflate cases need
 * the system library (package libdeflate0, in the test packages of the {@code outpost} script) on Java 22 or later.
 */
class LibDeflateTest {

    private static LibDeflate lib() {
        assumeTrue(LibDeflate.get().isPresent(), "libdeflate.so.0 not loadable here (not installed, or Java 21)");
        return LibDeflate.get().orElseThrow();
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2, 5, 6, 9})
    void zlibStreamInflatesToTheInputWithTheLevelClassOfZlib(int level) throws Exception {
        byte[] in = randomText(300_000, 1);
        byte[] z = lib().zlibCompress(in, in.length, level);
        assertThat(ZlibStreams.inflate(z, in.length)).isEqualTo(in);
        assertThat(z[0]).isEqualTo((byte) 0x78);
        int levelClass = (z[1] & 0xff) >> 6;
        int zlibClass = level < 2 ? 0 : level < 6 ? 1 : level == 6 ? 2 : 3;
        assertThat(levelClass).isEqualTo(zlibClass);
        assertThat(((z[0] & 0xff) << 8 | (z[1] & 0xff)) % 31).isZero();
    }

    @Test
    void keptCompressorsServeSmallerAndBiggerInputsInTurnFromManyThreads() throws Exception {
        LibDeflate lib = lib();
        int[] sizes = {100, 70_000, 5, 1_500_000, 65_536, 65_537, 0, 300_000};
        ExecutorService pool = Executors.newFixedThreadPool(6);
        try {
            java.util.List<java.util.concurrent.Future<?>> done = new java.util.ArrayList<>();
            for (int t = 0; t < 6; t++) {
                int seed = t;
                done.add(pool.submit(() -> {
                    for (int round = 0; round < 3; round++) {
                        for (int size : sizes) {
                            byte[] in = randomText(size, seed * 100 + round);
                            byte[] z = lib.zlibCompress(in, in.length, round == 1 ? 1 : 5);
                            assertThat(ZlibStreams.inflate(z, in.length)).isEqualTo(in);
                        }
                    }
                    return null;
                }));
            }
            for (java.util.concurrent.Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void emptyInputIsAValidStream() throws Exception {
        byte[] z = lib().zlibCompress(new byte[0], 0, 5);
        assertThat(ZlibStreams.inflate(z, 0)).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(ints = {10_000, 200_000, BlobEncoder.WHOLE_LIMIT + 300_000})
    void encoderWithLibdeflateCarriesTheSameRecordsAsZlib(int payloadBytes) throws Exception {
        LibDeflate lib = lib();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Answer viaLib = encode(sink -> new BlobEncoder(sink, 5, pool, lib), payloadBytes);
            Answer viaZlib = encode(sink -> new BlobEncoder(sink, 5, pool, null), payloadBytes);
            assertThat(viaLib.fullSize).isEqualTo(viaZlib.fullSize);
            byte[] records = ZlibStreams.inflate(viaLib.compressed, (int) viaLib.fullSize);
            assertThat(records).isEqualTo(ZlibStreams.inflate(viaZlib.compressed, (int) viaZlib.fullSize));
            assertThat(FrontierDecoder.records(records)).hasSize(payloadBytes / 50);
            // MD5 over the compressed bytes, as clients check it
            assertThat(viaLib.md5).isEqualTo(
                    HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(viaLib.compressed)));
            boolean held = records.length <= BlobEncoder.WHOLE_LIMIT;
            assertThat(Arrays.equals(viaLib.compressed, viaZlib.compressed)).isEqualTo(!held); // libdeflate's own stream
        } finally {
            pool.shutdownNow();
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 50, 10_000, 200_000, BlobEncoder.WHOLE_LIMIT + 300_000})
    void answerCompressedInPiecesCarriesTheSameRecordsAsZlib(int payloadBytes) throws Exception {
        LibDeflate lib = lib();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Answer pieces = encode(sink -> new BlobEncoder(sink, 5, pool, lib, true), payloadBytes);
            Answer viaZlib = encode(sink -> new BlobEncoder(sink, 5, pool, null), payloadBytes);
            assertThat(pieces.fullSize).isEqualTo(viaZlib.fullSize);
            byte[] records = ZlibStreams.inflate(pieces.compressed, (int) pieces.fullSize);
            assertThat(records).isEqualTo(ZlibStreams.inflate(viaZlib.compressed, (int) viaZlib.fullSize)).hasSize(payloadBytes / 50 * 56);
            assertThat(pieces.md5).isEqualTo(
                    HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(pieces.compressed)));
            assertThat(Arrays.copyOf(pieces.compressed, 2)).isEqualTo(Arrays.copyOf(viaZlib.compressed, 2));
            // the same bytes whichever thread finishes which piece first
            assertThat(encode(sink -> new BlobEncoder(sink, 5, pool, lib, true), payloadBytes).compressed)
                    .isEqualTo(pieces.compressed);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void piecesOnlyWhileFewCompressedAnswersAreUnderWay() throws Exception {
        lib();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            int before = BlobEncoder.computing();
            java.util.List<BlobEncoder> answers = new java.util.ArrayList<>();
            for (int i = 0; i <= BlobEncoder.PIECES_UP_TO; i++) {
                answers.add(BlobEncoder.forAnswer(new ByteArrayOutputStream(), 5, pool));
            }
            BlobEncoder plain = BlobEncoder.forAnswer(new ByteArrayOutputStream(), -1, pool);
            for (int i = 0; i < answers.size(); i++) {
                if (before + i == 0 && BlobEncoder.PIECES_UP_TO == 0) {
                    continue; // the only answer under way: pieces or not follows the machine's load (tested below)
                }
                assertThat(answers.get(i).inPieces()).as("answer " + i).isEqualTo(before + i < BlobEncoder.PIECES_UP_TO);
            }
            assertThat(plain.inPieces()).isFalse();
            assertThat(BlobEncoder.computing()).isEqualTo(before + answers.size());
            for (BlobEncoder e : answers) {
                e.close();
                e.close(); // twice: counted once
            }
            plain.close();
            assertThat(BlobEncoder.computing()).isEqualTo(before);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void theOnlyAnswerUnderWayIsCompressedInPiecesWhenACoreIsIdle() {
        assertThat(BlobEncoder.inPieces("", 0, () -> 1)).isTrue();
        assertThat(BlobEncoder.inPieces("", 0, () -> 0)).isEqualTo(BlobEncoder.PIECES_UP_TO > 0);
        assertThat(BlobEncoder.inPieces("", Math.max(1, BlobEncoder.PIECES_UP_TO), () -> 8))
                .as("idle cores count only for the one answer under way").isFalse();
        assertThat(BlobEncoder.inPieces("pieces", 100, () -> 0)).isTrue();
        assertThat(BlobEncoder.inPieces("whole", 0, () -> 8)).isFalse();
        assertThat(BlobEncoder.inPieces("jdk", 0, () -> 8)).isFalse();
    }

    @Test
    void forAnswerFollowsTheProperty() throws Exception {
        lib();
        System.setProperty(BlobEncoder.DEFLATE_PROPERTY, "jdk");
        try {
            Answer jdk = encode(sink -> BlobEncoder.forAnswer(sink, 5, null), 5_000);
            Answer zlib = encode(sink -> new BlobEncoder(sink, 5, null, null), 5_000);
            assertThat(jdk.compressed).isEqualTo(zlib.compressed);
        } finally {
            System.clearProperty(BlobEncoder.DEFLATE_PROPERTY);
        }
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            for (String way : new String[] {"whole", "pieces"}) {
                System.setProperty(BlobEncoder.DEFLATE_PROPERTY, way);
                Answer a = encode(sink -> BlobEncoder.forAnswer(sink, 5, pool), 300_000);
                NativeDeflate forFive = NativeDeflate.forLevel(5).orElseThrow(); // igzip where it is installed
                Answer expected = encode(sink -> new BlobEncoder(sink, 5, pool, forFive, way.equals("pieces")), 300_000);
                assertThat(a.compressed).as(way).isEqualTo(expected.compressed);
            }
        } finally {
            System.clearProperty(BlobEncoder.DEFLATE_PROPERTY);
            pool.shutdownNow();
        }
        Answer lib = encode(sink -> BlobEncoder.forAnswer(sink, 5, null), 5_000);
        Answer zlib = encode(sink -> new BlobEncoder(sink, 5, null, null), 5_000);
        assertThat(lib.compressed).isNotEqualTo(zlib.compressed);
        assertThat(ZlibStreams.inflate(lib.compressed, (int) lib.fullSize)).isEqualTo(ZlibStreams.inflate(zlib.compressed, (int) zlib.fullSize));
    }

    record Answer(byte[] compressed, long fullSize, String md5) {
    }

    /** Records of 50-character random strings, {@code payloadBytes} of them in all; the base64 decoded again. */
    static Answer encode(Function<ByteArrayOutputStream, BlobEncoder> encoder, int payloadBytes)
            throws Exception {
        ByteArrayOutputStream sink = new ByteArrayOutputStream();
        BlobEncoder e = encoder.apply(sink);
        byte[] text = randomText(payloadBytes, 3);
        for (int off = 0; off + 50 <= text.length; off += 50) {
            e.writeString(new String(text, off, 50, StandardCharsets.US_ASCII));
            e.writeEOR();
        }
        e.close();
        return new Answer(Base64.getMimeDecoder().decode(sink.toByteArray()), e.fullSize(), e.md5Hex());
    }

    static byte[] randomText(int n, long seed) {
        Random r = new Random(seed);
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) ('!' + r.nextInt(94));
        }
        return b;
    }
}
