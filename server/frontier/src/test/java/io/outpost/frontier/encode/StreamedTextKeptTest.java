package io.outpost.frontier.encode;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import org.junit.jupiter.api.Test;

/**
 * An answer whose records stream (past the 2 MB compressed in one call, or uncompressed) keeps its text when asked and
 * it is sent whole: exactly the bytes written, the same as without keeping it; a text past the limit is not kept.
 */
class StreamedTextKeptTest {

    /** {@code rows} records of one 60-character value, compressible as COOL's rows of one write are. */
    private static byte[] records(int rows) {
        RecordBytes b = new RecordBytes(rows * 66);
        for (int i = 0; i < rows; i++) {
            b.string(String.format("%060d", i % 1000));
            b.endOfRecord();
        }
        return b.toArray();
    }

    private record Encoded(byte[] written, byte[] kept, String md5) {
    }

    private static Encoded encode(byte[] records, int level, boolean keepText) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BlobEncoder enc = new BlobEncoder(out, level, null, keepText);
        enc.writeRecords(records, 0, records.length);
        enc.close();
        return new Encoded(out.toByteArray(), enc.encodedText(), enc.md5Hex());
    }

    @Test
    void aCompressedAnswerPastTheWholeLimitKeepsItsText() throws Exception {
        byte[] records = records(50_000); // 3.3 MB: streamed through java.util.zip
        assertThat(records.length).isGreaterThan(BlobEncoder.WHOLE_LIMIT);
        Encoded kept = encode(records, 5, true);
        Encoded plain = encode(records, 5, false);
        assertThat(kept.written()).as("the same bytes either way").isEqualTo(plain.written());
        assertThat(kept.md5()).isEqualTo(plain.md5());
        assertThat(kept.kept()).as("the text written, kept").isEqualTo(kept.written());
        assertThat(plain.kept()).as("not asked: not kept").isNull();
    }

    @Test
    void anUncompressedAnswerIsKeptOnlyWithinTheTextLimit() throws Exception {
        byte[] small = records(20_000); // 1.3 MB: 1.8 MB of base64
        Encoded kept = encode(small, -1, true);
        assertThat(kept.kept()).isEqualTo(kept.written()).isEqualTo(encode(small, -1, false).written());
        Encoded big = encode(records(30_000), -1, true); // 2.7 MB of base64: streamed on as it comes
        assertThat(big.written().length).isGreaterThan(BlobEncoder.TEXT_HOLD_LIMIT);
        assertThat(big.kept()).isNull();
    }
}
