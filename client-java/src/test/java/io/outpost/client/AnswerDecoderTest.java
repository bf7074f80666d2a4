package io.outpost.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outpost.client.internal.AnswerDecoder;
import io.outpost.client.internal.CorruptAnswerException;
import io.outpost.client.testing.FakeOutpost;
import io.outpost.client.testing.VectorCheck;
import io.outpost.client.testing.WireEncoder;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class AnswerDecoderTest {

    static byte[] sample(int codec) {
        return WireEncoder.iovs("/A/Time", "HEAD", FakeOutpost.PAYLOAD).codec(codec)
                .encode(FakeOutpost.browseRows("all", 0, 1000));
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1})
    void decodesIovsWithTypedPayload(int codec) throws IOException {
        Answer a = VectorCheck.decode(sample(codec));
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
        byte[] bytes = new WireEncoder(AnswerKind.NODES, "", "", 0, 0,
                cols).encode(List.<Object[]>of(new Object[] {big, blob}, new Object[] {"small", null}));
        Answer a = VectorCheck.decode(bytes);
        assertThat(a.rows().get(0).getString("s")).isEqualTo(big);
        assertThat(a.rows().get(0).getBytes("b")).isEqualTo(blob);
        assertThat(a.rows().get(1).get("b")).isNull();
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1})
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

    @Test
    void aFlippedCompressedByteIsDetected() {
        byte[] b = sample(1);
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
