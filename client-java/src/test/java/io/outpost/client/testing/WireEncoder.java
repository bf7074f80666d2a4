package io.outpost.client.testing;

import com.github.luben.zstd.ZstdOutputStream;
import io.outpost.wire.AnswerKind;
import io.outpost.wire.Column;
import io.outpost.wire.ColumnType;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.zip.CRC32;
import java.util.zip.Deflater;
import java.util.zip.DeflaterOutputStream;

/**
 * Encodes answers in the wire format (docs/wire-format.md), written from the spec independently of the decoder, so
 * the client's tests have vectors before the server produces testdata/. Also makes deliberately broken answers.
 */
public final class WireEncoder {
    public static final int CODEC_NONE = 0;
    public static final int CODEC_ZLIB = 1;
    public static final int CODEC_ZSTD = 2;

    private final AnswerKind kind;
    private final String folder;
    private final String tag;
    private final long validSince;
    private final long validUntil;
    private final List<Column> columns;
    private int codec = CODEC_ZLIB;
    private Long rowCountOverride;
    private Long crcOverride;

    public WireEncoder(AnswerKind kind, String folder, String tag, long validSince, long validUntil,
                       List<Column> columns) {
        this.kind = kind;
        this.folder = folder;
        this.tag = tag;
        this.validSince = validSince;
        this.validUntil = validUntil;
        this.columns = columns;
    }

    public static WireEncoder iovs(String folder, String tag, List<Column> payload) {
        List<Column> cols = new java.util.ArrayList<>(List.of(new Column("channel", ColumnType.UINT32),
                new Column("since", ColumnType.UINT63), new Column("until", ColumnType.UINT63)));
        cols.addAll(payload);
        return new WireEncoder(AnswerKind.IOVS, folder, tag, 0, 0, cols);
    }

    public WireEncoder codec(int c) {
        codec = c;
        return this;
    }

    public WireEncoder lieAboutRowCount(long n) {
        rowCountOverride = n;
        return this;
    }

    public WireEncoder lieAboutCrc(long crc) {
        crcOverride = crc;
        return this;
    }

    public byte[] encode(List<Object[]> rows) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        encode(rows.iterator(), rows.size(), out);
        return out.toByteArray();
    }

    /** Streams the answer to {@code out}; the body is built in memory (needed for body_len). */
    public void encode(java.util.Iterator<Object[]> rows, long n, OutputStream out) {
        try {
            ByteArrayOutputStream bodyBytes = new ByteArrayOutputStream();
            CRC32 crc = new CRC32();
            Deflater deflater = new Deflater(5);
            // zstd: one frame, level 3 (zstd's default).
            OutputStream target = switch (codec) {
                case CODEC_ZLIB -> new DeflaterOutputStream(bodyBytes, deflater, 1 << 16);
                case CODEC_ZSTD -> new ZstdOutputStream(bodyBytes, 3);
                default -> bodyBytes;
            };
            DataOutputStream content = new DataOutputStream(new java.util.zip.CheckedOutputStream(
                    new java.io.BufferedOutputStream(target, 1 << 16), crc));
            content.writeByte(kind.code());
            str(content, folder);
            str(content, tag);
            content.writeLong(validSince);
            content.writeLong(validUntil);
            content.writeShort(columns.size());
            for (Column c : columns) {
                str(content, c.name());
                content.writeByte(c.type().code());
            }
            long count = 0;
            while (rows.hasNext()) {
                Object[] row = rows.next();
                content.writeByte(1);
                byte[] nulls = new byte[(columns.size() + 7) / 8];
                for (int i = 0; i < row.length; i++) {
                    if (row[i] == null) {
                        nulls[i / 8] |= (byte) (1 << (i % 8));
                    }
                }
                content.write(nulls);
                for (int i = 0; i < row.length; i++) {
                    if (row[i] != null) {
                        value(content, columns.get(i).type(), row[i]);
                    }
                }
                count++;
            }
            content.writeByte(0);
            content.flush();
            if (target instanceof DeflaterOutputStream d) {
                d.finish();
            } else if (target instanceof ZstdOutputStream z) {
                z.close(); // ends the frame; closing a ByteArrayOutputStream does nothing
            }
            deflater.end();
            byte[] body = bodyBytes.toByteArray();
            DataOutputStream o = new DataOutputStream(out);
            o.write("OUTP".getBytes(StandardCharsets.US_ASCII));
            o.writeByte(1);
            o.writeByte(codec);
            o.writeShort(0);
            o.writeLong(body.length);
            o.write(body);
            o.writeLong(rowCountOverride != null ? rowCountOverride : count);
            o.writeInt((int) (crcOverride != null ? crcOverride : crc.getValue()));
            o.write("PTUO".getBytes(StandardCharsets.US_ASCII));
            o.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void str(DataOutputStream out, String s) throws IOException {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.writeInt(b.length);
        out.write(b);
    }

    private static void value(DataOutputStream out, ColumnType t, Object v) throws IOException {
        switch (t) {
            case BOOL -> out.writeByte((Boolean) v ? 1 : 0);
            case UCHAR -> out.writeByte(((Number) v).intValue());
            case INT16, UINT16 -> out.writeShort(((Number) v).intValue());
            case INT32, UINT32 -> out.writeInt((int) ((Number) v).longValue());
            case UINT63, INT64 -> out.writeLong(((Number) v).longValue());
            case FLOAT -> out.writeFloat(((Number) v).floatValue());
            case DOUBLE -> out.writeDouble(((Number) v).doubleValue());
            case STRING255, STRING4K, STRING64K, STRING16M -> str(out, (String) v);
            case BLOB64K, BLOB16M -> {
                byte[] b = (byte[]) v;
                out.writeInt(b.length);
                out.write(b);
            }
        }
    }
}
