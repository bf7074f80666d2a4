package io.outpost.wire;

import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32;
import java.util.zip.Inflater;
import java.util.zip.InflaterInputStream;
import java.util.zip.ZipException;

/**
 * Decodes one answer in the wire format (docs/wire-format.md) incrementally from a stream: header first, then one
 * row at a time, never holding the whole answer. A zlib body (codec 1) is inflated through
 * {@link InflaterInputStream}, a zstd body (codec 2, one frame) is decompressed through {@link ZstdFrameInput}, into
 * a 64 KiB buffer, and the CRC-32 is computed over that buffer as it fills. After the end-of-rows marker the decoder
 * checks that the zlib stream or zstd frame ends exactly at {@code body_len}, and the trailer's magic, row count and
 * CRC-32; any mismatch, short read or garbage is a {@link CorruptAnswerException}. Not thread-safe: one decoder per
 * answer.
 */
public final class AnswerDecoder implements Closeable {
    private static final int BUFFER = 1 << 16;
    private static final VarHandle SHORT = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private final InputStream raw;
    private final long contentLength;
    private final long maxContentBytes;
    private final CRC32 crc = new CRC32();
    private final byte[] buf = new byte[BUFFER];
    private int pos;
    private int lim;

    private BodyInput body;
    private Inflater inflater;
    private ZstdFrameInput zstd;
    private InputStream content;
    private AnswerHeader header;
    private ColumnType[] types;
    private int nullBytes;
    private byte[] nullBits;
    private long rows;
    private boolean done;

    /**
     * @param raw the answer's bytes (an HTTP body); closed by {@link #close()}
     * @param contentLength the HTTP Content-Length, or -1 if unknown
     */
    public AnswerDecoder(InputStream raw, long contentLength) {
        this(raw, contentLength, Long.MAX_VALUE);
    }

    /**
     * As {@link #AnswerDecoder(InputStream, long)}, refusing an answer whose decompressed content exceeds
     * {@code maxContentBytes} (a small compressed body may expand without limit).
     */
    public AnswerDecoder(InputStream raw, long contentLength, long maxContentBytes) {
        this.raw = raw;
        this.contentLength = contentLength;
        this.maxContentBytes = maxContentBytes;
    }

    /** Reads and checks the header and the content's description. Call once, before {@link #nextRow()}. */
    public AnswerHeader readHeader() throws IOException {
        if (header != null) {
            return header;
        }
        byte[] h = readRaw(WireFormat.HEADER_LENGTH, "header");
        if ((int) INT.get(h, 0) != WireFormat.MAGIC) {
            throw new CorruptAnswerException("bad magic: not an Outpost answer");
        }
        if (h[4] != WireFormat.VERSION) {
            throw new CorruptAnswerException("unsupported wire format version " + (h[4] & 0xFF));
        }
        Codec codec = Codec.ofCode(h[5] & 0xFF);
        if (codec == null) {
            throw new CorruptAnswerException("unsupported codec " + (h[5] & 0xFF));
        }
        long bodyLength = (long) LONG.get(h, 8);
        if (bodyLength < 0) {
            throw new CorruptAnswerException("negative body length " + bodyLength);
        }
        if (contentLength >= 0 && contentLength != WireFormat.HEADER_LENGTH + bodyLength + WireFormat.TRAILER_LENGTH) {
            throw new CorruptAnswerException("Content-Length is " + contentLength + " but the header announces "
                    + (WireFormat.HEADER_LENGTH + bodyLength + WireFormat.TRAILER_LENGTH) + " bytes");
        }
        body = new BodyInput(raw, bodyLength);
        if (codec == Codec.ZLIB) {
            inflater = new Inflater();
            content = new InflaterInputStream(body, inflater, BUFFER);
        } else if (codec == Codec.ZSTD) {
            zstd = new ZstdFrameInput(body);
            content = zstd;
        } else {
            content = body;
        }
        if (maxContentBytes != Long.MAX_VALUE) {
            content = new ContentLimit(content, maxContentBytes);
        }
        AnswerKind kind = AnswerKind.ofCode(u8());
        if (kind == null) {
            throw new CorruptAnswerException("unknown answer kind " + (buf[pos - 1] & 0xFF));
        }
        // Paths and tag names are String255 (at most 1020 UTF-8 bytes); the generous limit only keeps a corrupt length
        // from allocating up to 2 GiB before the CRC-32 could tell.
        String folder = string(1 << 16);
        String tag = string(1 << 16);
        long validSince = i64();
        long validUntil = i64();
        int ncols = u16();
        List<Column> columns = new ArrayList<>(ncols);
        types = new ColumnType[ncols];
        for (int i = 0; i < ncols; i++) {
            String name = string(1 << 16);
            ColumnType type = ColumnType.ofCode(u8());
            if (type == null) {
                throw new CorruptAnswerException("unknown type code " + (buf[pos - 1] & 0xFF) + " of column " + name);
            }
            types[i] = type;
            columns.add(new Column(name, type));
        }
        nullBytes = (ncols + 7) / 8;
        nullBits = new byte[nullBytes];
        header = new AnswerHeader(codec, bodyLength, kind, folder, tag, validSince, validUntil, new Schema(columns));
        return header;
    }

    /**
     * The values of the next row, typed as {@link ColumnType#javaType()}, or null after the last row, once the
     * whole answer has been verified.
     */
    public Object[] nextRow() throws IOException {
        if (done) {
            return null;
        }
        if (header == null) {
            readHeader();
        }
        int marker = u8();
        if (marker == 0) {
            finish();
            done = true;
            return null;
        }
        if (marker != 1) {
            throw new CorruptAnswerException("bad row marker " + marker + " at row " + rows);
        }
        ensure(nullBytes);
        System.arraycopy(buf, pos, nullBits, 0, nullBytes);
        pos += nullBytes;
        Object[] values = new Object[types.length];
        for (int i = 0; i < types.length; i++) {
            if ((nullBits[i >>> 3] & (1 << (i & 7))) == 0) {
                values[i] = value(types[i]);
            }
        }
        rows++;
        return values;
    }

    /** Rows returned so far. */
    public long rowsRead() {
        return rows;
    }

    /** True once the end of the rows was reached and the answer verified. */
    public boolean isDone() {
        return done;
    }

    @Override
    public void close() throws IOException {
        if (inflater != null) {
            inflater.end();
        }
        if (zstd != null) {
            zstd.close();
        }
        raw.close();
    }

    private Object value(ColumnType t) throws IOException {
        return switch (t) {
            case BOOL -> u8() != 0;
            case UCHAR -> (short) u8();
            case INT16 -> {
                ensure(2);
                short v = (short) SHORT.get(buf, pos);
                pos += 2;
                yield v;
            }
            case UINT16 -> u16();
            case INT32 -> i32();
            case UINT32 -> i32() & 0xFFFF_FFFFL;
            case UINT63, INT64 -> i64();
            case FLOAT -> Float.intBitsToFloat(i32());
            case DOUBLE -> Double.longBitsToDouble(i64());
            case STRING255, STRING4K, STRING64K, STRING16M -> string(maxBytes(t));
            case BLOB64K, BLOB16M -> bytes(maxBytes(t));
        };
    }

    private static int maxBytes(ColumnType t) {
        return switch (t) {
            case STRING255 -> 255 * 4;
            case STRING4K -> 4096 * 4;
            case BLOB64K -> 65535;
            case STRING64K -> 65535 * 4;
            default -> 16 * 1024 * 1024 * 4;
        };
    }

    private int u8() throws IOException {
        ensure(1);
        return buf[pos++] & 0xFF;
    }

    private int u16() throws IOException {
        ensure(2);
        int v = (short) SHORT.get(buf, pos) & 0xFFFF;
        pos += 2;
        return v;
    }

    private int i32() throws IOException {
        ensure(4);
        int v = (int) INT.get(buf, pos);
        pos += 4;
        return v;
    }

    private long i64() throws IOException {
        ensure(8);
        long v = (long) LONG.get(buf, pos);
        pos += 8;
        return v;
    }

    private int length(int max) throws IOException {
        int n = i32();
        if (n < 0 || n > max) {
            throw new CorruptAnswerException("bad length " + n + " at row " + rows + " (limit " + max + ")");
        }
        return n;
    }

    private String string(int max) throws IOException {
        int n = length(max);
        if (n <= BUFFER) {
            ensure(n);
            String s = new String(buf, pos, n, StandardCharsets.UTF_8);
            pos += n;
            return s;
        }
        return new String(large(n), StandardCharsets.UTF_8);
    }

    private byte[] bytes(int max) throws IOException {
        int n = length(max);
        if (n <= BUFFER) {
            ensure(n);
            byte[] b = new byte[n];
            System.arraycopy(buf, pos, b, 0, n);
            pos += n;
            return b;
        }
        return large(n);
    }

    /** A value longer than the buffer: copy what is buffered, read the rest straight into the array. */
    private byte[] large(int n) throws IOException {
        byte[] b = new byte[n];
        int have = lim - pos;
        System.arraycopy(buf, pos, b, 0, have);
        pos = lim;
        while (have < n) {
            int r = readContent(b, have, n - have);
            if (r < 0) {
                throw new CorruptAnswerException("content ends inside a value at row " + rows);
            }
            crc.update(b, have, r);
            have += r;
        }
        return b;
    }

    /** Makes at least {@code n <= BUFFER} content bytes available at {@code buf[pos..]}. */
    private void ensure(int n) throws IOException {
        if (lim - pos >= n) {
            return;
        }
        int have = lim - pos;
        System.arraycopy(buf, pos, buf, 0, have);
        pos = 0;
        lim = have;
        while (lim < n) {
            int r = readContent(buf, lim, buf.length - lim);
            if (r < 0) {
                throw new CorruptAnswerException("content ends early at row " + rows + " (no end-of-rows marker)");
            }
            crc.update(buf, lim, r);
            lim += r;
        }
    }

    private int readContent(byte[] b, int off, int len) throws IOException {
        try {
            return content.read(b, off, len);
        } catch (ZipException e) {
            throw new CorruptAnswerException("body is not a valid zlib stream: " + e.getMessage(), e);
        } catch (EOFException e) {
            throw new CorruptAnswerException("truncated body: " + e.getMessage(), e);
        }
    }

    private void finish() throws IOException {
        if (pos < lim || readContent(new byte[1], 0, 1) >= 0) {
            throw new CorruptAnswerException("content continues after the end-of-rows marker");
        }
        if (inflater != null && (!inflater.finished() || inflater.getRemaining() > 0 || body.remaining() > 0)) {
            throw new CorruptAnswerException("the zlib stream ends " + (inflater.getRemaining() + body.remaining())
                    + " bytes before body_len");
        }
        if (zstd != null && (!zstd.frameFinished() || zstd.leftover() > 0 || body.remaining() > 0)) {
            throw new CorruptAnswerException("the zstd frame ends " + (zstd.leftover() + body.remaining())
                    + " bytes before body_len");
        }
        byte[] t = readRaw(WireFormat.TRAILER_LENGTH, "trailer");
        if ((int) INT.get(t, 12) != WireFormat.TRAILER_MAGIC) {
            throw new CorruptAnswerException("bad trailer magic");
        }
        long rowCount = (long) LONG.get(t, 0);
        if (rowCount != rows) {
            throw new CorruptAnswerException("trailer says " + rowCount + " rows, content has " + rows);
        }
        long expectedCrc = (int) INT.get(t, 8) & 0xFFFF_FFFFL;
        if (expectedCrc != crc.getValue()) {
            throw new CorruptAnswerException(String.format("CRC-32 mismatch: trailer %08x, content %08x",
                    expectedCrc, crc.getValue()));
        }
        if (raw.read() >= 0) {
            throw new CorruptAnswerException("bytes after the trailer");
        }
    }

    private byte[] readRaw(int n, String what) throws IOException {
        byte[] b = new byte[n];
        int have = 0;
        while (have < n) {
            int r = raw.read(b, have, n - have);
            if (r < 0) {
                throw new CorruptAnswerException("truncated answer: " + what + " has " + have + " of " + n + " bytes");
            }
            have += r;
        }
        return b;
    }

    /** The decompressed content, refused once longer than a limit. */
    private static final class ContentLimit extends java.io.FilterInputStream {
        private final long max;
        private long count;

        ContentLimit(InputStream in, long max) {
            super(in);
            this.max = max;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = in.read(b, off, len);
            if (n > 0 && (count += n) > max) {
                throw new CorruptAnswerException("decompressed answer larger than " + max + " bytes");
            }
            return n;
        }
    }

    /** The compressed body: exactly {@code length} bytes of the raw stream; ending earlier is truncation. */
    private static final class BodyInput extends InputStream {
        private final InputStream in;
        private long remaining;
        private final long length;

        BodyInput(InputStream in, long length) {
            this.in = in;
            this.remaining = length;
            this.length = length;
        }

        long remaining() {
            return remaining;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (remaining == 0) {
                return -1;
            }
            int r = in.read(b, off, (int) Math.min(len, remaining));
            if (r < 0) {
                throw new CorruptAnswerException("truncated answer: body has " + (length - remaining) + " of "
                        + length + " bytes");
            }
            remaining -= r;
            return r;
        }
    }
}
