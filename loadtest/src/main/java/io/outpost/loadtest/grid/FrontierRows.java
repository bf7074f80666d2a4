package io.outpost.loadtest.grid;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

/**
 * The rows of a one-payload Frontier answer (docs/frontier.md), as a COOL job reads them: the base64 data, inflated
 * for the zip encodings, split into records of strings (0x06), NULLs (0x86) and ends of record (0x07). The first
 * record is the column metadata and is dropped. A payload error or a broken answer is an exception naming it.
 */
final class FrontierRows {
    private FrontierRows() {
    }

    static List<List<String>> parse(String body) {
        int quality = body.indexOf("<quality error=\"");
        if (quality < 0) {
            throw new IllegalStateException("not a Frontier answer");
        }
        if (body.charAt(quality + 16) != '0') {
            int msg = body.indexOf("message=\"", quality);
            throw new IllegalStateException("Frontier payload error: "
                    + (msg < 0 ? "?" : body.substring(msg + 9, body.indexOf('"', msg + 9))));
        }
        int enc = body.indexOf("encoding=\"", body.indexOf("<payload "));
        boolean zip = body.substring(enc + 10, body.indexOf('"', enc + 10)).contains("zip");
        String data = body.substring(body.indexOf("<data>") + 6, body.indexOf("</data>"))
                .replace("<keepalive />", "").replaceAll("\\s", "");
        byte[] bytes = Base64.getDecoder().decode(data);
        return records(zip ? inflate(bytes) : bytes);
    }

    private static List<List<String>> records(byte[] plain) {
        ByteBuffer in = ByteBuffer.wrap(plain);
        List<List<String>> rows = new ArrayList<>();
        List<String> cur = new ArrayList<>();
        while (in.hasRemaining()) {
            int type = in.get() & 0xff;
            switch (type) {
                case 0x06 -> {
                    byte[] s = new byte[in.getInt()];
                    in.get(s);
                    cur.add(new String(s, StandardCharsets.ISO_8859_1));
                }
                case 0x86 -> cur.add(null);
                case 0x07 -> {
                    rows.add(cur);
                    cur = new ArrayList<>();
                }
                default -> throw new IllegalStateException("Frontier record type " + type);
            }
        }
        if (rows.isEmpty() || !cur.isEmpty()) {
            throw new IllegalStateException("truncated Frontier records");
        }
        return rows.subList(1, rows.size());
    }

    private static byte[] inflate(byte[] z) {
        Inflater inf = new Inflater();
        try {
            inf.setInput(z);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] buf = new byte[65536];
            while (!inf.finished()) {
                int n = inf.inflate(buf);
                if (n == 0 && inf.needsInput()) {
                    throw new IllegalStateException("truncated zlib stream");
                }
                out.write(buf, 0, n);
            }
            return out.toByteArray();
        } catch (DataFormatException e) {
            throw new IllegalStateException("zlib: " + e.getMessage(), e);
        } finally {
            inf.end();
        }
    }
}
