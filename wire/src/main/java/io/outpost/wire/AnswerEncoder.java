package io.outpost.wire;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.zip.CRC32;

/**
 * The binary answer of docs/wire-format.md: 16-byte header, compressed content, 16-byte trailer with the row count
 * and the CRC-32 of the uncompressed content. Rows are encoded into a chunk buffer that is checksummed and
 * compressed every {@value #CHUNK} bytes, so a large answer is held once, compressed.
 */
public final class AnswerEncoder implements TableEncoder {
    static final int CHUNK = 128 * 1024;

    private final Codec codec;
    private final int level;
    /** Made at {@link #begin}: an encoder whose answer is found made already costs no buffers. */
    private GrowableBytes content;
    private GrowableBytes answer;
    private final CRC32 crc = new CRC32();
    /** Taken at the first chunk, so that an answer that fails before any output holds no native resources. */
    private BodyCompressor compressor;
    private ColumnType[] types;
    private long rows;
    /** {@link #expect}: the next answer's content and answer sizes, 0 when not known. */
    private int expectedContent;
    private int expectedAnswer;

    public AnswerEncoder(Codec codec, int level) {
        this.codec = codec;
        this.level = level;
    }

    @Override
    public void begin(AnswerKind kind, String folder, String tag, long validSince, long validUntil,
                      List<Column> columns) {
        types = new ColumnType[columns.size()];
        content = new GrowableBytes(expectedContent > 0 ? Math.min(CHUNK, expectedContent) + 1024 : 16 * 1024);
        // room for the answer, plus what the compressor asks to be free before a chunk (at most a chunk's bound)
        answer = new GrowableBytes(expectedAnswer > 0 ? WireFormat.HEADER_LENGTH + expectedAnswer
                + WireFormat.TRAILER_LENGTH + bound(expectedContent) : 16 * 1024);
        answer.size(WireFormat.HEADER_LENGTH);
        content.u8(kind.code());
        string(folder);
        string(tag);
        content.i64(validSince);
        content.i64(validUntil);
        content.i16(columns.size());
        for (int i = 0; i < types.length; i++) {
            Column c = columns.get(i);
            types[i] = c.type();
            string(c.name());
            content.u8(c.type().code());
        }
    }

    /**
     * Sizes the next {@link #begin}'s buffers for rows of about {@code contentBytes} that compress to about
     * {@code answerBytes} (a like answer's size, at most the rows' size), instead of growing them from 16 KB; the
     * bytes are the same whatever the sizes.
     */
    public void expect(long contentBytes, long answerBytes) {
        expectedContent = (int) Math.min(Math.max(0, contentBytes), CHUNK);
        expectedAnswer = (int) Math.min(Math.max(0, answerBytes), Integer.MAX_VALUE / 2);
    }

    /** At least what the compressor asks to be free before it compresses {@code n} bytes (zstd's bound). */
    private static int bound(int n) {
        return n + n / 128 + 1024;
    }

    @Override
    public void row(Object[] values) {
        writeRow(types, values, content);
        rows++;
        if (content.size() >= CHUNK) {
            flush(false);
        }
    }

    /**
     * Appends rows already in the wire form ({@link EncodedRows}) of this answer's columns: the content gets the same
     * bytes as {@link #row} of each, and is compressed in the same chunks, so the answer's bytes are the same too.
     */
    public void encodedRows(byte[] src, int off, int len, long count) {
        int end = off + len;
        while (off < end) {
            int n = Math.min(end - off, Math.max(0, CHUNK - content.size()));
            if (n == 0) {
                flush(false);
                continue;
            }
            content.bytes(src, off, n);
            off += n;
            if (content.size() >= CHUNK) {
                flush(false);
            }
        }
        rows += count;
    }

    /** One row's wire form: the row marker, the null bitmap, then each non-null value. */
    static void writeRow(ColumnType[] types, Object[] values, GrowableBytes out) {
        out.u8(1);
        int n = types.length;
        for (int b = 0; b < n; b += 8) {
            int bits = 0;
            for (int i = b; i < Math.min(n, b + 8); i++) {
                if (values[i] == null) {
                    bits |= 1 << (i - b);
                }
            }
            out.u8(bits);
        }
        for (int i = 0; i < n; i++) {
            if (values[i] != null) {
                value(types[i], values[i], out);
            }
        }
    }

    private static void value(ColumnType type, Object v, GrowableBytes out) {
        switch (type) {
            case BOOL -> out.u8((Boolean) v ? 1 : 0);
            case UCHAR -> out.u8(((Number) v).intValue());
            case INT16, UINT16 -> out.i16(((Number) v).intValue());
            case INT32, UINT32 -> out.i32((int) ((Number) v).longValue());
            case UINT63, INT64 -> out.i64(((Number) v).longValue());
            case FLOAT -> out.i32(Float.floatToIntBits(((Number) v).floatValue()));
            case DOUBLE -> out.i64(Double.doubleToLongBits(((Number) v).doubleValue()));
            case STRING255, STRING4K, STRING64K, STRING16M -> string((String) v, out);
            case BLOB64K, BLOB16M -> {
                byte[] b = (byte[]) v;
                out.i32(b.length);
                out.bytes(b);
            }
        }
    }

    private void string(String s) {
        string(s, content);
    }

    private static void string(String s, GrowableBytes out) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.i32(b.length);
        out.bytes(b);
    }

    private void flush(boolean last) {
        if (compressor == null) {
            compressor = BodyCompressor.of(codec, level);
        }
        crc.update(content.array(), 0, content.size());
        compressor.compress(content.array(), 0, content.size(), last, answer);
        content.clear();
    }

    @Override
    public byte[] finish() {
        content.u8(0);
        boolean completed = false;
        try {
            flush(true);
            completed = true;
        } finally {
            if (compressor != null) {
                compressor.release(completed);
                compressor = null;
            }
        }
        long bodyLength = answer.size() - WireFormat.HEADER_LENGTH;
        answer.i64(rows);
        answer.i32((int) crc.getValue());
        answer.i32(WireFormat.TRAILER_MAGIC);
        byte[] all = answer.toArray();
        ByteBuffer header = ByteBuffer.wrap(all);
        header.putInt(0, WireFormat.MAGIC);
        header.put(4, (byte) WireFormat.VERSION);
        header.put(5, (byte) codec.code());
        header.putLong(8, bodyLength);
        return all;
    }

    @Override
    public void abandon() {
        if (compressor != null) {
            compressor.release(false);
            compressor = null;
        }
    }

    public Codec codec() {
        return codec;
    }

    public int level() {
        return level;
    }

    @Override
    public long rows() {
        return rows;
    }

    @Override
    public String contentType() {
        return WireFormat.CONTENT_TYPE;
    }
}
