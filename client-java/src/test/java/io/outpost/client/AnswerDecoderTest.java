package io.outpost.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outpost.client.testing.FakeOutpost;
import io.outpost.client.testing.WireEncoder;
import io.outpost.wire.AnswerDecoder;
import io.outpost.wire.AnswerKind;
import io.outpost.wire.Column;
import io.outpost.wire.ColumnType;
import io.outpost.wire.CorruptAnswerException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class AnswerDecoderTest {

    static byte[] sample(int codec) {
        return WireEncoder.iovs("/A/Time", "HEAD", FakeOutpost.PAYLOAD).codec(codec)
                .encode(FakeOutpost.browseRows("all", 0, 1000));
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2})
    void decodesIovsWithTypedPayload(int codec) throws IOException {
        Answer a = WholeAnswers.decode(sample(codec));
        assertThat(a.kind()).isEqualTo(AnswerKind.IOVS);
        assertThat(a.rowCount()).isEqualTo(110);
        Iov first = a.iovs().get(0);
        assertThat(first.channel()).isZero();
        assertThat(first.until()).isEqualTo(100);
        assertThat(first.payload().get("value")).isEqualTo(0.0);
        assertThat(first.payload().getString("label")).isEqualTo("c0@0");
    }

    @Test
    void decodesValuesLongerThanTheBuffer() throws IOException {
        String big = "x".repeat(200_000);
        byte[] blob = new byte[150_000];
        Arrays.fill(blob, (byte) 7);
        List<Column> cols = List.of(new Column("s", ColumnType.STRING16M), new Column("b", ColumnType.BLOB16M));
        for (int codec : new int[] {0, 1, 2}) {
            byte[] bytes = new WireEncoder(AnswerKind.NODES, "", "", 0, 0, cols).codec(codec)
                    .encode(List.<Object[]>of(new Object[] {big, blob}, new Object[] {"small", null}));
            Answer a = WholeAnswers.decode(bytes);
            assertThat(a.rows().get(0).getString("s")).isEqualTo(big);
            assertThat(a.rows().get(0).getBytes("b")).isEqualTo(blob);
            assertThat(a.rows().get(1).get("b")).isNull();
        }
    }

    @Test
    void decodesAZstdAnswerLargerThanItsBuffersRowByRow() throws IOException {
        // ~3 MB of content: many zstd blocks and many refills of the 64 KiB input and 128 KiB output buffers.
        List<Object[]> rows = new ArrayList<>();
        for (long i = 0; i < 100_000; i++) {
            rows.add(FakeOutpost.row(i % 7, i * FakeOutpost.STEP));
        }
        byte[] bytes = WireEncoder.iovs("/A/Time", "HEAD", FakeOutpost.PAYLOAD).codec(2).encode(rows);
        List<Object[]> decoded = decodeAll(bytes, bytes.length);
        assertThat(decoded).hasSize(rows.size());
        for (int i = 0; i < rows.size(); i++) {
            assertThat(decoded.get(i)).as("row %d", i).containsExactly(rows.get(i));
        }
    }

    @Test
    void zstdRoundTripOfEveryType() throws IOException {
        List<Column> all = new ArrayList<>();
        for (ColumnType t : ColumnType.values()) {
            all.add(new Column("c_" + t.wireName(), t));
        }
        Object[] r1 = {true, (short) 255, (short) -32768, 65535, Integer.MIN_VALUE, 4294967295L, Long.MAX_VALUE,
            Long.MIN_VALUE, 1.5f, -2.25e300, "é", "x".repeat(300), "", "multi\nline", new byte[] {0, 1, (byte) 255},
            new byte[0]};
        Object[] r2 = new Object[all.size()];
        byte[] bytes = new WireEncoder(AnswerKind.NODES, "", "", 0, 0, all).codec(2).encode(List.of(r1, r2));
        assertThat(bytes[5]).isEqualTo((byte) 2);
        List<Object[]> rows = decodeAll(bytes, bytes.length);
        assertThat(rows).hasSize(2);
        assertThat(rows.get(0)).containsExactly(r1);
        assertThat(rows.get(1)).containsOnlyNulls();
        byte[] empty = new WireEncoder(AnswerKind.NODES, "", "", 0, 0, all).codec(2).encode(List.of());
        assertThat(decodeAll(empty, empty.length)).isEmpty();
    }

    @Test
    void everyZstdFrameTruncationWithAMatchingBodyLenIsDetected() {
        // The frame is cut but body_len, Content-Length and the trailer agree with the cut: only the frame tells.
        byte[] whole = sample(2);
        int bodyLen = (int) ByteBuffer.wrap(whole, 8, 8).getLong();
        for (int cut = 1; cut <= bodyLen; cut++) {
            byte[] b = withBody(whole, Arrays.copyOf(body(whole), bodyLen - cut));
            assertThatThrownBy(() -> decodeAll(b, b.length)).as("frame cut by %d bytes", cut)
                    .isInstanceOf(CorruptAnswerException.class);
        }
    }

    @Test
    void everyFlippedZstdBodyByteIsDetectedOrHarmless() throws IOException {
        byte[] whole = sample(2);
        List<Object[]> expected = decodeAll(whole, whole.length);
        int bodyLen = (int) ByteBuffer.wrap(whole, 8, 8).getLong();
        int detected = 0;
        for (int i = 16; i < 16 + bodyLen; i++) {
            for (int bit : new int[] {0x01, 0x80}) {
                byte[] b = whole.clone();
                b[i] ^= (byte) bit;
                List<Object[]> rows;
                try {
                    rows = decodeAll(b, b.length);
                } catch (CorruptAnswerException e) {
                    detected++;
                    continue;
                }
                // Not detected: then it must not have changed the answer (e.g. a bit the frame header ignores).
                assertThat(rows).as("byte %d bit %x", i, bit).hasSameSizeAs(expected);
                for (int r = 0; r < rows.size(); r++) {
                    assertThat(rows.get(r)).containsExactly(expected.get(r));
                }
            }
        }
        assertThat(detected).isGreaterThan(bodyLen);
    }

    @Test
    void bytesAfterTheZstdFrameAreRejected() {
        byte[] ok = sample(2);
        byte[] frame = body(ok);
        byte[][] tails = {{0}, {1, 2, 3}, frame, // a second frame, concatenated
            {0x50, 0x2A, 0x4D, 0x18, 0, 0, 0, 0}, // an empty skippable frame (RFC 8878 3.1.2)
            new byte[100_000]};
        for (byte[] tail : tails) {
            byte[] longer = Arrays.copyOf(frame, frame.length + tail.length);
            System.arraycopy(tail, 0, longer, frame.length, tail.length);
            byte[] b = withBody(ok, longer);
            assertThatThrownBy(() -> decodeAll(b, b.length)).as("%d bytes after the frame", tail.length)
                    .isInstanceOf(CorruptAnswerException.class).hasMessageContaining("before body_len");
        }
        // A skippable frame first is not "one frame holding the content" either.
        byte[] skipFirst = new byte[8 + frame.length];
        System.arraycopy(new byte[] {0x50, 0x2A, 0x4D, 0x18, 0, 0, 0, 0}, 0, skipFirst, 0, 8);
        System.arraycopy(frame, 0, skipFirst, 8, frame.length);
        byte[] b = withBody(ok, skipFirst);
        assertThatThrownBy(() -> decodeAll(b, b.length)).isInstanceOf(CorruptAnswerException.class);
    }

    @Test
    void anEmptyOrForeignZstdBodyIsCorrupt() {
        byte[] ok = sample(2);
        for (byte[] body : new byte[][] {{}, {0x28, (byte) 0xB5, 0x2F}, "not zstd at all".getBytes(),
            Arrays.copyOf(body(sample(1)), 64)}) {
            byte[] b = withBody(ok, body);
            assertThatThrownBy(() -> decodeAll(b, b.length)).as("body of %d bytes", body.length)
                    .isInstanceOf(CorruptAnswerException.class);
        }
    }

    /** The compressed body of an encoded answer. */
    private static byte[] body(byte[] answer) {
        int bodyLen = (int) ByteBuffer.wrap(answer, 8, 8).getLong();
        return Arrays.copyOfRange(answer, 16, 16 + bodyLen);
    }

    /** The answer with another body (body_len adjusted), same header otherwise and same trailer. */
    private static byte[] withBody(byte[] answer, byte[] body) {
        byte[] b = new byte[16 + body.length + 16];
        System.arraycopy(answer, 0, b, 0, 16);
        ByteBuffer.wrap(b, 8, 8).putLong(body.length);
        System.arraycopy(body, 0, b, 16, body.length);
        System.arraycopy(answer, answer.length - 16, b, 16 + body.length, 16);
        return b;
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2})
    void everyTruncationIsDetected(int codec) {
        byte[] whole = sample(codec);
        for (int n = 0; n < whole.length; n += Math.max(1, whole.length / 300)) {
            byte[] part = Arrays.copyOf(whole, n);
            // Both an honest and a missing Content-Length: the format alone must reveal the truncation.
            assertThatThrownBy(() -> decodeAll(part, -1)).as("prefix of %d bytes", n)
                    .isInstanceOf(CorruptAnswerException.class);
            assertThatThrownBy(() -> decodeAll(part, part.length)).isInstanceOf(CorruptAnswerException.class);
        }
    }

    @Test
    void aFlippedContentByteFailsTheCrc() {
        byte[] b = sample(0);
        int i = b.length / 2; // inside some label string
        b[i] ^= 0x01;
        assertThatThrownBy(() -> decodeAll(b, b.length)).isInstanceOf(CorruptAnswerException.class);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void aFlippedCompressedByteIsDetected(int codec) {
        byte[] b = sample(codec);
        b[b.length / 2] ^= 0x10;
        assertThatThrownBy(() -> decodeAll(b, b.length)).isInstanceOf(CorruptAnswerException.class);
    }

    @Test
    void wrongRowCountAndCrcInTheTrailerAreDetected() {
        WireEncoder e = WireEncoder.iovs("/A/Time", "HEAD", FakeOutpost.PAYLOAD);
        byte[] rows = e.lieAboutRowCount(3).encode(FakeOutpost.browseRows("1", 0, 500));
        assertThatThrownBy(() -> decodeAll(rows, rows.length)).hasMessageContaining("trailer says 3 rows");
        byte[] crc = WireEncoder.iovs("/A/Time", "HEAD", FakeOutpost.PAYLOAD).lieAboutCrc(12345)
                .encode(FakeOutpost.browseRows("1", 0, 500));
        assertThatThrownBy(() -> decodeAll(crc, crc.length)).hasMessageContaining("CRC-32");
    }

    @Test
    void badMagicVersionAndLengthsAreDetected() {
        byte[] magic = sample(1);
        magic[0] = 'X';
        assertThatThrownBy(() -> decodeAll(magic, -1)).hasMessageContaining("magic");
        byte[] version = sample(1);
        version[4] = 2;
        assertThatThrownBy(() -> decodeAll(version, -1)).hasMessageContaining("version");
        byte[] ok = sample(1);
        assertThatThrownBy(() -> decodeAll(ok, ok.length + 1)).hasMessageContaining("Content-Length");
        byte[] extra = Arrays.copyOf(ok, ok.length + 1);
        assertThatThrownBy(() -> decodeAll(extra, -1)).hasMessageContaining("after the trailer");
        byte[] trailer = sample(1);
        trailer[trailer.length - 1] = 'X';
        assertThatThrownBy(() -> decodeAll(trailer, -1)).hasMessageContaining("trailer magic");
    }

    @Test
    void aZlibStreamEndingBeforeBodyLenIsDetected() {
        byte[] ok = sample(1);
        long bodyLen = ByteBuffer.wrap(ok, 8, 8).getLong();
        // Insert one garbage byte after the zlib stream and grow body_len to match.
        byte[] padded = new byte[ok.length + 1];
        System.arraycopy(ok, 0, padded, 0, (int) (16 + bodyLen));
        padded[(int) (16 + bodyLen)] = 0;
        System.arraycopy(ok, (int) (16 + bodyLen), padded, (int) (17 + bodyLen), 16);
        ByteBuffer.wrap(padded, 8, 8).putLong(bodyLen + 1);
        assertThatThrownBy(() -> decodeAll(padded, padded.length)).isInstanceOf(CorruptAnswerException.class)
                .hasMessageContaining("before body_len");
    }

    private static List<Object[]> decodeAll(byte[] b, long contentLength) throws IOException {
        List<Object[]> rows = new ArrayList<>();
        try (AnswerDecoder d = new AnswerDecoder(new ByteArrayInputStream(b), contentLength)) {
            d.readHeader();
            for (Object[] r; (r = d.nextRow()) != null; ) {
                rows.add(r);
            }
        }
        return rows;
    }
}
