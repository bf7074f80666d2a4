package io.outpost.server.encode;

import io.outpost.store.model.StorageType;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.zip.CRC32;
import java.util.zip.Deflater;
import java.util.zip.DeflaterOutputStream;

/**
 * The binary answer of docs/wire-format.md: 16-byte header, zlib-compressed content, 16-byte trailer with the
 * row count and the CRC-32 of the uncompressed content. Rows are compressed as they are written.
 */
public final class BinaryEncoder implements TableEncoder {
    public static final String CONTENT_TYPE = "application/vnd.outpost.table";
    static final byte[] MAGIC = "OUTP".getBytes(StandardCharsets.US_ASCII);
    static final byte[] END_MAGIC = "PTUO".getBytes(StandardCharsets.US_ASCII);
    static final int HEADER = 16;
    public static final int UNCOMPRESSED = -1;

    private final ByteArrayOutputStream buffer = new ByteArrayOutputStream(8192);
    private final Deflater deflater;
    private final CRC32 crc = new CRC32();
    private final DataOutputStream out;
    private List<Column> columns;
    private long rows;

    private final int codec;

    /** The compression of the body, as the header's codec byte. */
    public enum Codec {
        NONE(0), ZLIB(1), ZSTD(2);

        final int code;

        Codec(int code) {
            this.code = code;
        }

        public static Codec parse(String s) {
            return valueOf(s.toUpperCase(java.util.Locale.ROOT));
        }
    }

    /** A zlib encoder at {@code level} 0–9, or {@link #UNCOMPRESSED} for codec 0. */
    public BinaryEncoder(int level) {
        this(level == UNCOMPRESSED ? Codec.NONE : Codec.ZLIB, level);
    }

    public BinaryEncoder(Codec c, int level) {
        buffer.write(new byte[HEADER], 0, HEADER);
        codec = c.code;
        deflater = c == Codec.ZLIB ? new Deflater(level) : null;
        OutputStream deflating = switch (c) {
            case NONE -> new java.io.FilterOutputStream(buffer) {
                @Override
                public void write(byte[] b, int off, int len) throws IOException {
                    out.write(b, off, len);
                }
            };
            case ZLIB -> new DeflaterOutputStream(buffer, deflater, 32 * 1024);
            case ZSTD -> zstd(buffer, level);
        };
        OutputStream checked = new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                crc.update(b);
                deflating.write(b);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                crc.update(b, off, len);
                deflating.write(b, off, len);
            }

            @Override
            public void close() throws IOException {
                deflating.close();
            }
        };
        out = new DataOutputStream(new java.io.BufferedOutputStream(checked, 16 * 1024));
    }

    private static OutputStream zstd(OutputStream to, int level) {
        try {
            com.github.luben.zstd.ZstdOutputStream z = new com.github.luben.zstd.ZstdOutputStream(to, level);
            z.setCloseFrameOnFlush(false);
            return z;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void begin(Kind kind, String folder, String tag, long validSince, long validUntil, List<Column> columns) {
        this.columns = columns;
        try {
            out.writeByte(kind.code());
            writeString(folder);
            writeString(tag);
            out.writeLong(validSince);
            out.writeLong(validUntil);
            out.writeShort(columns.size());
            for (Column c : columns) {
                writeString(c.name());
                out.writeByte(c.type().ordinal());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void row(Object[] values) {
        try {
            out.writeByte(1);
            int n = columns.size();
            byte[] nulls = new byte[(n + 7) / 8];
            for (int i = 0; i < n; i++) {
                if (values[i] == null) {
                    nulls[i / 8] |= (byte) (1 << (i % 8));
                }
            }
            out.write(nulls);
            for (int i = 0; i < n; i++) {
                if (values[i] != null) {
                    writeValue(columns.get(i).type(), values[i]);
                }
            }
            rows++;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void writeValue(StorageType type, Object v) throws IOException {
        switch (type) {
            case BOOL -> out.writeByte((Boolean) v ? 1 : 0);
            case UCHAR -> out.writeByte(((Number) v).intValue());
            case INT16, UINT16 -> out.writeShort(((Number) v).intValue());
            case INT32, UINT32 -> out.writeInt((int) ((Number) v).longValue());
            case UINT63, INT64 -> out.writeLong(((Number) v).longValue());
            case FLOAT -> out.writeFloat(((Number) v).floatValue());
            case DOUBLE -> out.writeDouble(((Number) v).doubleValue());
            case STRING255, STRING4K, STRING64K, STRING16M -> writeString((String) v);
            case BLOB64K, BLOB16M -> {
                byte[] b = (byte[]) v;
                out.writeInt(b.length);
                out.write(b);
            }
        }
    }

    private void writeString(String s) throws IOException {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.writeInt(b.length);
        out.write(b);
    }

    @Override
    public byte[] finish() {
        try {
            out.writeByte(0);
            out.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            if (deflater != null) {
                deflater.end();
            }
        }
        int bodyLength = buffer.size() - HEADER;
        ByteBuffer trailer = ByteBuffer.allocate(16).putLong(rows).putInt((int) crc.getValue()).put(END_MAGIC);
        buffer.write(trailer.array(), 0, 16);
        byte[] all = buffer.toByteArray();
        ByteBuffer.wrap(all, 0, HEADER).put(MAGIC).put((byte) 1).put((byte) codec).putShort((short) 0).putLong(bodyLength);
        return all;
    }

    @Override
    public long rows() {
        return rows;
    }

    @Override
    public String contentType() {
        return CONTENT_TYPE;
    }
}
