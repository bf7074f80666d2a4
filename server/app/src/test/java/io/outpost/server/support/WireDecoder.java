package io.outpost.server.support;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.zip.CRC32;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

/**
 * An independent decoder of docs/wire-format.md for the tests: checks every rule (magic, version, sizes, that the
 * zlib stream ends exactly at body_len, row count, CRC-32, end marker) and returns the table as JSON-like values.
 */
public final class WireDecoder {

    public record Column(String name, int type) {
    }

    public record Table(int kind, String folder, String tag, long validSince, long validUntil, List<Column> columns,
                        List<List<Object>> rows) {
    }

    private WireDecoder() {
    }

    public static Table decode(byte[] all) throws IOException {
        if (all.length < 32) {
            throw new IOException("shorter than header and trailer: " + all.length);
        }
        ByteBuffer h = ByteBuffer.wrap(all);
        byte[] magic = new byte[4];
        h.get(magic);
        if (!new String(magic, StandardCharsets.US_ASCII).equals("OUTP")) {
            throw new IOException("bad magic");
        }
        int version = h.get();
        int codec = h.get();
        int flags = h.getShort();
        long bodyLen = h.getLong();
        if (version != 1 || codec < 0 || codec > 2 || flags != 0) {
            throw new IOException("version " + version + " codec " + codec + " flags " + flags);
        }
        if (16 + bodyLen + 16 != all.length) {
            throw new IOException("size mismatch: header says " + bodyLen + " body bytes, got " + (all.length - 32));
        }
        byte[] content;
        if (codec == 0) {
            content = java.util.Arrays.copyOfRange(all, 16, 16 + (int) bodyLen);
        } else if (codec == 2) {
            byte[] body = java.util.Arrays.copyOfRange(all, 16, 16 + (int) bodyLen);
            try {
                if (com.github.luben.zstd.Zstd.findFrameCompressedSize(body) != body.length) {
                    throw new IOException("the zstd frame does not end at body_len");
                }
                try (var in = new com.github.luben.zstd.ZstdInputStream(new java.io.ByteArrayInputStream(body))) {
                    content = in.readAllBytes();
                }
            } catch (com.github.luben.zstd.ZstdException | IOException e) {
                throw new IOException("corrupt zstd frame: " + e.getMessage());
            }
        } else {
            Inflater inf = new Inflater();
            inf.setInput(all, 16, (int) bodyLen);
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
            byte[] buf = new byte[65536];
            try {
                while (!inf.finished()) {
                    int n = inf.inflate(buf);
                    if (n == 0 && (inf.needsInput() || inf.needsDictionary())) {
                        throw new IOException("zlib stream truncated");
                    }
                    out.write(buf, 0, n);
                }
            } catch (DataFormatException e) {
                throw new IOException("corrupt zlib stream: " + e.getMessage());
            }
            if (inf.getRemaining() != 0) {
                throw new IOException("bytes after the end of the zlib stream");
            }
            inf.end();
            content = out.toByteArray();
        }
        ByteBuffer t = ByteBuffer.wrap(all, all.length - 16, 16);
        long rowCount = t.getLong();
        int crc = t.getInt();
        byte[] end = new byte[4];
        t.get(end);
        if (!new String(end, StandardCharsets.US_ASCII).equals("PTUO")) {
            throw new IOException("bad trailer magic");
        }
        CRC32 c = new CRC32();
        c.update(content);
        if ((int) c.getValue() != crc) {
            throw new IOException("CRC-32 mismatch");
        }
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(content));
        int kind = in.readUnsignedByte();
        String folder = str(in);
        String tag = str(in);
        long vs = in.readLong();
        long vu = in.readLong();
        int ncols = in.readUnsignedShort();
        List<Column> cols = new ArrayList<>();
        for (int i = 0; i < ncols; i++) {
            cols.add(new Column(str(in), in.readUnsignedByte()));
        }
        List<List<Object>> rows = new ArrayList<>();
        while (true) {
            int marker = in.readUnsignedByte();
            if (marker == 0) {
                break;
            }
            if (marker != 1) {
                throw new IOException("bad row marker " + marker);
            }
            byte[] nulls = new byte[(ncols + 7) / 8];
            in.readFully(nulls);
            List<Object> row = new ArrayList<>();
            for (int i = 0; i < ncols; i++) {
                if ((nulls[i / 8] & (1 << (i % 8))) != 0) {
                    row.add(null);
                    continue;
                }
                row.add(switch (cols.get(i).type()) {
                    case 0 -> in.readUnsignedByte() != 0;
                    case 1 -> in.readUnsignedByte();
                    case 2 -> in.readShort();
                    case 3 -> in.readUnsignedShort();
                    case 4 -> in.readInt();
                    case 5 -> Integer.toUnsignedLong(in.readInt());
                    case 6, 7 -> in.readLong();
                    case 8 -> in.readFloat();
                    case 9 -> in.readDouble();
                    case 10, 11, 12, 13 -> str(in);
                    case 14, 15 -> {
                        byte[] b = new byte[in.readInt()];
                        in.readFully(b);
                        yield Base64.getEncoder().encodeToString(b);
                    }
                    default -> throw new IOException("unknown type " + cols.get(i).type());
                });
            }
            rows.add(row);
        }
        if (in.available() != 0) {
            throw new IOException("bytes after the end marker");
        }
        if (rows.size() != rowCount) {
            throw new IOException("trailer says " + rowCount + " rows, content has " + rows.size());
        }
        return new Table(kind, folder, tag, vs, vu, cols, rows);
    }

    private static String str(DataInputStream in) throws IOException {
        byte[] b = new byte[in.readInt()];
        in.readFully(b);
        return new String(b, StandardCharsets.UTF_8);
    }
}
