package io.outpost.frontier.encode;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Compressed answers reused by record content: only byte-identical records at the same level get an earlier
 * answer's text (a candidate with the same CRC and length but other bytes is refused); the reused text is exactly
 * what compressing afresh would have sent, with its MD5; small answers are not kept.
 */
class EncodedRecordsTest {

    private static byte[] records(int rows, int seed) {
        Random r = new Random(seed);
        RecordBytes b = new RecordBytes(rows * 46);
        for (int i = 0; i < rows; i++) {
            byte[] v = new byte[40];
            for (int k = 0; k < v.length; k++) {
                v[k] = (byte) ('!' + r.nextInt(94));
            }
            b.bytes(v);
            b.endOfRecord();
        }
        return b.toArray();
    }

    /** The encoded text of {@code records} at {@code level}, with the encoder's MD5 appended after a space. */
    private static String encode(byte[] records, int level, EncodedRecords memo) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BlobEncoder enc = new BlobEncoder(out, level, memo);
        enc.writeBytes(records);
        enc.close();
        if (records.length >= EncodedRecords.MIN_BYTES) {
            assertThat(enc.encodedText()).as("the text kept or reused is what was written").isEqualTo(out.toByteArray());
        } else {
            assertThat(enc.encodedText()).as("small answers are not kept").isNull();
        }
        return out.toString(java.nio.charset.StandardCharsets.US_ASCII) + " " + enc.md5Hex();
    }

    @Test
    void aKeptAnswerIsNotChangedByLaterAnswersWrittenIntoTheSameHeldBuffer() throws Exception {
        EncodedRecords memo = new EncodedRecords(64 << 20);
        byte[] a = records(8000, 1); // 368 KB: its buffer is handed back to HeldBuffers and taken again
        String first = encode(a, 5, memo);
        for (int seed = 2; seed < 2 + 2 * 8; seed++) { // more answers than spare buffers: each one written over
            encode(records(8000, seed), 5, memo);
        }
        assertThat(memo.reused()).isZero();
        // looked up with bytes of its own (an encoder would write a's records into a held buffer first)
        byte[] stream = new byte[5 + a.length];
        stream[0] = BlobEncoder.ARRAY_BYTE;
        java.nio.ByteBuffer.wrap(stream, 1, 4).putInt(a.length);
        System.arraycopy(a, 0, stream, 5, a.length);
        EncodedRecords.Entry kept = memo.find(EncodedRecords.key(5, stream, stream.length), stream, stream.length);
        assertThat(kept).as("the kept records are a copy, still a's").isNotNull();
        assertThat(new String(kept.base64(), java.nio.charset.StandardCharsets.US_ASCII) + " " + kept.md5())
                .isEqualTo(first);
    }

    @Test
    void identicalRecordsReuseTheTextAndOtherRecordsAreCompressedAfresh() throws Exception {
        EncodedRecords memo = new EncodedRecords(64 << 20);
        byte[] a = records(2000, 1);
        String first = encode(a, 5, memo);
        assertThat(memo.reused()).isZero();
        String again = encode(a.clone(), 5, memo);
        assertThat(memo.reused()).isEqualTo(1);
        assertThat(again).isEqualTo(first);

        String text = first.substring(0, first.indexOf(' '));
        byte[] compressed = Base64.getMimeDecoder().decode(text);
        assertThat(HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(compressed)))
                .isEqualTo(first.substring(first.indexOf(' ') + 1));
        // the reused text holds the records with the record stream's 5-byte header of writeBytes
        byte[] inflated = ZlibStreams.inflate(compressed, a.length + 5);
        assertThat(java.util.Arrays.copyOfRange(inflated, 5, inflated.length)).isEqualTo(a);

        byte[] b = a.clone();
        b[b.length / 2] ^= 1;
        String other = encode(b, 5, memo);
        assertThat(memo.reused()).as("one byte differs").isEqualTo(1);
        byte[] otherInflated = ZlibStreams.inflate(Base64.getMimeDecoder().decode(other.substring(0, other.indexOf(' '))),
                b.length + 5);
        assertThat(java.util.Arrays.copyOfRange(otherInflated, 5, otherInflated.length)).isEqualTo(b);

        encode(a, 9, memo);
        assertThat(memo.reused()).as("another level").isEqualTo(1);

        byte[] small = records(10, 2);
        encode(small, 5, memo);
        encode(small, 5, memo);
        assertThat(memo.reused()).as("too small to keep").isEqualTo(1);
    }

    @Test
    void aCandidateWithTheSameKeyButOtherBytesIsRefused() {
        EncodedRecords memo = new EncodedRecords(1 << 20);
        byte[] a = records(500, 3);
        EncodedRecords.Key key = EncodedRecords.key(5, a, a.length);
        memo.keep(key, a, a.length, new byte[] {'x'}, "md5");
        byte[] b = a.clone();
        b[0] ^= 1;
        assertThat(memo.find(key, b, b.length)).as("as if the CRCs had collided").isNull();
        assertThat(memo.find(key, a, a.length - 1)).as("another length").isNull();
        assertThat(memo.find(key, a.clone(), a.length)).isNotNull();
        assertThat(memo.reused()).isEqualTo(1);
    }
}
