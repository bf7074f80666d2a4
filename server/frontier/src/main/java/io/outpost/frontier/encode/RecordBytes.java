package io.outpost.frontier.encode;

import java.util.Arrays;

/**
 * Records in the form {@link BlobEncoder} writes them (each value {@code 0x06}, a 4-byte big-endian length and its
 * bytes, or {@code 0x86} for NULL; {@code 0x07} ends a record), built once and copied into answers with
 * {@link BlobEncoder#writeRecords}.
 */
public final class RecordBytes {
    private byte[] buf;
    private int pos;

    public RecordBytes(int expectedBytes) {
        buf = new byte[Math.max(64, expectedBytes)];
    }

    /** A string value, each char as its low byte (as {@link BlobEncoder#writeString}); null is NULL. */
    @SuppressWarnings("deprecation") // String.getBytes(int, int, byte[], int) is exactly "low byte of each char"
    public void string(String s) {
        if (s == null) {
            nullValue();
            return;
        }
        int n = s.length();
        header(n);
        s.getBytes(0, n, buf, pos);
        pos += n;
    }

    /** A binary value as it is; null is NULL. */
    public void bytes(byte[] b) {
        if (b == null) {
            nullValue();
            return;
        }
        header(b.length);
        System.arraycopy(b, 0, buf, pos, b.length);
        pos += b.length;
    }

    public void endOfRecord() {
        room(1);
        buf[pos++] = BlobEncoder.EOR;
    }

    /** Bytes written so far: where the next record starts. */
    public int length() {
        return pos;
    }

    /** The records written (an array of exactly {@link #length} bytes). */
    public byte[] toArray() {
        return Arrays.copyOf(buf, pos);
    }

    private void nullValue() {
        room(1);
        buf[pos++] = BlobEncoder.NULL_ARRAY_BYTE;
    }

    private void header(int length) {
        room(5 + length);
        buf[pos] = BlobEncoder.ARRAY_BYTE;
        buf[pos + 1] = (byte) (length >>> 24);
        buf[pos + 2] = (byte) (length >>> 16);
        buf[pos + 3] = (byte) (length >>> 8);
        buf[pos + 4] = (byte) length;
        pos += 5;
    }

    private void room(int n) {
        if (buf.length - pos < n) {
            buf = Arrays.copyOf(buf, Math.max(buf.length * 2, pos + n));
        }
    }
}
