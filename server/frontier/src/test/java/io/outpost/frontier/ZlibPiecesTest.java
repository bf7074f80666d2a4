package io.outpost.frontier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.Random;
import java.util.zip.Adler32;
import java.util.zip.Deflater;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** Pieces compressed alone by libdeflate, joined, inflate as one zlib stream to the whole input. */
class ZlibPiecesTest {

    private static LibDeflate lib() {
        assumeTrue(LibDeflate.get().isPresent(), "libdeflate.so.0 not loadable here (not installed, or Java 21)");
        return LibDeflate.get().orElseThrow();
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2, 5, 6, 9})
    void joinedPiecesInflateToTheWholeInput(int level) throws Exception {
        LibDeflate lib = lib();
        Random r = new Random(level);
        // text, long repeats (long matches), random bytes (stored blocks), a few bytes, and an empty last piece
        byte[][] pieces = {text(r, 70_000), repeats(100_000), noise(r, 80_000), text(r, 3), text(r, 65_536),
            noise(r, 150_000), repeats(7), new byte[0]};
        ByteArrayOutputStream whole = new ByteArrayOutputStream();
        ByteArrayOutputStream z = new ByteArrayOutputStream();
        Adler32 adler = new Adler32();
        long combined = 1;
        z.write(ZlibPieces.header(level));
        for (int i = 0; i < pieces.length; i++) {
            byte[] in = pieces[i];
            whole.write(in);
            adler.update(in);
            NativeDeflate.Piece p = ZlibPieces.piece(lib, in, in.length, level, i == pieces.length - 1);
            z.write(p.deflate());
            combined = ZlibPieces.combineAdler(combined, p.adler32(), in.length);
        }
        assertThat(combined).as("the pieces' checksums combined").isEqualTo(adler.getValue());
        z.write(ZlibPieces.trailer(combined));
        byte[] stream = z.toByteArray();
        assertThat(ZlibStreams.inflate(stream, whole.size())).isEqualTo(whole.toByteArray());
        // the header is the one libdeflate (and zlib) write for this level
        byte[] reference = lib.zlibCompress(new byte[] {1}, 1, level);
        assertThat(Arrays.copyOf(stream, 2)).isEqualTo(Arrays.copyOf(reference, 2));
    }

    @Test
    void combinedChecksumsAreTheChecksumOfTheWhole() {
        Random r = new Random(5);
        for (int round = 0; round < 200; round++) {
            byte[] in = round % 3 == 0 ? noise(r, r.nextInt(300_000)) : text(r, r.nextInt(70_000));
            int cut = in.length == 0 ? 0 : r.nextInt(in.length + 1);
            Adler32 first = new Adler32();
            first.update(in, 0, cut);
            Adler32 second = new Adler32();
            second.update(in, cut, in.length - cut);
            Adler32 whole = new Adler32();
            whole.update(in);
            assertThat(ZlibPieces.combineAdler(first.getValue(), second.getValue(), in.length - cut))
                    .as("round " + round).isEqualTo(whole.getValue());
        }
        assertThat(ZlibPieces.combineAdler(0xfff0_fff0L, 1, 0)).isEqualTo(0xfff0_fff0L); // an empty second part
    }

    @Test
    void lastBlockEndsInTheStreamsLastByte() {
        LibDeflate lib = lib();
        Random r = new Random(7);
        for (int n : new int[] {0, 1, 100, 5_000, 64 << 10, 300_000}) {
            for (byte[] in : new byte[][] {text(r, n), noise(r, n), repeats(n)}) {
                byte[] raw = lib.deflateCompress(in, in.length, 5);
                DeflateBlocks.Last last = DeflateBlocks.last(raw, raw.length);
                assertThat(last.endBit()).isGreaterThan(8L * raw.length - 8).isLessThanOrEqualTo(8L * raw.length);
                assertThat(last.headerBit()).isLessThan(last.endBit());
            }
        }
    }

    @Test
    void aSingleBlocksEndFoundFromItsEndOfBlockCodeIsWhereTheWalkEndsIt() {
        LibDeflate lib = lib();
        Random r = new Random(11);
        int quick = 0;
        int tried = 0;
        for (int level : new int[] {1, 2, 5, 6, 9}) {
            for (int n : new int[] {0, 1, 40, 1_000, 5_000, 20_000, 64 << 10, 300_000}) {
                for (byte[] in : new byte[][] {text(r, n), noise(r, n), repeats(n), records(r, n)}) {
                    byte[] raw = lib.deflateCompress(in, in.length, level);
                    DeflateBlocks.Last walked = DeflateBlocks.last(raw, raw.length);
                    DeflateBlocks.Last found = DeflateBlocks.singleBlock(raw, raw.length);
                    tried++;
                    if (found != null) {
                        quick++;
                        assertThat(found).as("level %d, %d bytes", level, n).isEqualTo(walked);
                    }
                    assertThat(DeflateBlocks.lastOfComplete(raw, raw.length)).isEqualTo(walked);
                }
            }
        }
        assertThat(quick).as("of %d streams", tried).isGreaterThan(tried / 3);
        for (int i = 0; i < 16; i++) { // pieces of records as the encoder makes them: one block each, found quickly
            byte[] piece = records(r, 64 << 10);
            byte[] raw = lib.deflateCompress(piece, piece.length, 5);
            assertThat(DeflateBlocks.singleBlock(raw, raw.length)).isEqualTo(DeflateBlocks.last(raw, raw.length));
        }
    }

    @Test
    void zlibsOwnBlocksAreWalkedToo() {
        Random r = new Random(9);
        byte[] in = text(r, 400_000);
        for (int level : new int[] {0, 1, 6, 9}) {
            Deflater d = new Deflater(level, true);
            d.setInput(in);
            d.finish();
            byte[] out = new byte[in.length + 1024];
            int n = 0;
            while (!d.finished()) {
                n += d.deflate(out, n, out.length - n);
            }
            d.end();
            DeflateBlocks.Last last = DeflateBlocks.last(out, n);
            assertThat(last.endBit()).isGreaterThan(8L * n - 8).isLessThanOrEqualTo(8L * n);
        }
    }

    @Test
    void aTruncatedOrCorruptStreamIsRefusedNotLooped() {
        LibDeflate lib = lib();
        byte[] in = text(new Random(1), 50_000);
        byte[] raw = lib.deflateCompress(in, in.length, 5);
        assertThatThrownBy(() -> DeflateBlocks.last(raw, raw.length / 2)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> DeflateBlocks.last(new byte[] {7}, 1)).isInstanceOf(IllegalStateException.class);
    }

    /** Frontier records like a COOL folder's: channel, since, until, a 50-character payload. */
    private static byte[] records(Random r, int n) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (int ch = 0; b.size() < n; ch++) {
            for (String v : new String[] {Integer.toString(ch), "0", "9223372036854775807", new String(text(r, 50))}) {
                b.write(BlobEncoder.ARRAY_BYTE);
                b.writeBytes(java.nio.ByteBuffer.allocate(4).putInt(v.length()).array());
                b.writeBytes(v.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            }
            b.write(BlobEncoder.EOR);
        }
        return Arrays.copyOf(b.toByteArray(), n);
    }

    private static byte[] text(Random r, int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) ('!' + r.nextInt(94));
        }
        return b;
    }

    private static byte[] noise(Random r, int n) {
        byte[] b = new byte[n];
        r.nextBytes(b);
        return b;
    }

    private static byte[] repeats(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) ("COOL_F0001_IOVS".charAt(i % 15));
        }
        return b;
    }
}
