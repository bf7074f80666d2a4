package io.outpost.frontier.protocol;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

/**
 * The {@code p1} encoding of frontier_client's {@code fn_gzip_str2urlenc}: zlib-format deflate at level 9, standard
 * base64, then {@code +}→{@code .}, {@code /}→{@code -}, {@code =}→{@code _}.
 */
public final class P1Codec {
    /** frontier_client refuses to encode more than 1 MiB; the decoder refuses to inflate more than this. */
    public static final int MAX_SQL_BYTES = 1 << 20;

    private P1Codec() {
    }

    public static String encode(String sql) {
        String s = sql.endsWith("\n") ? sql.substring(0, sql.length() - 1) : sql;
        byte[] in = s.getBytes(StandardCharsets.ISO_8859_1);
        Deflater d = new Deflater(9);
        try {
            d.setInput(in);
            d.finish();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] buf = new byte[8192];
            while (!d.finished()) {
                out.write(buf, 0, d.deflate(buf));
            }
            String b64 = Base64.getEncoder().encodeToString(out.toByteArray());
            return b64.replace('+', '.').replace('/', '-').replace('=', '_');
        } finally {
            d.end();
        }
    }

    /** Decodes {@code p1} to SQL text (US-ASCII as upstream; bytes above 127 are kept as Latin-1). */
    public static String decode(String p1) throws FrontierException {
        if (p1 == null || p1.isEmpty()) {
            throw new FrontierException("Empty p1 parameter");
        }
        StringBuilder b = new StringBuilder(p1.length());
        for (int i = 0; i < p1.length(); i++) {
            char c = p1.charAt(i);
            switch (c) {
                case '.' -> b.append('+');
                case '-' -> b.append('/');
                case '_' -> b.append('=');
                default -> b.append(c);
            }
        }
        // Like upstream Base64Coder: trailing padding is optional.
        int end = b.length();
        while (end > 0 && b.charAt(end - 1) == '=') {
            end--;
        }
        byte[] bin;
        try {
            bin = Base64.getDecoder().decode(b.substring(0, end));
        } catch (IllegalArgumentException e) {
            throw new FrontierException("Bad p1 parameter: not base64 (" + e.getMessage() + ")");
        }
        Inflater inf = new Inflater();
        try {
            inf.setInput(bin);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] buf = new byte[4096];
            while (!inf.finished()) {
                int n = inf.inflate(buf);
                if (n == 0) {
                    if (inf.needsInput() || inf.needsDictionary()) {
                        throw new FrontierException("Bad p1 parameter: truncated zlib data");
                    }
                }
                out.write(buf, 0, n);
                if (out.size() > MAX_SQL_BYTES) {
                    throw new FrontierException("Bad p1 parameter: SQL longer than " + MAX_SQL_BYTES + " bytes");
                }
            }
            return out.toString(StandardCharsets.ISO_8859_1);
        } catch (DataFormatException e) {
            throw new FrontierException("Bad p1 parameter: not zlib data (" + e.getMessage() + ")");
        } finally {
            inf.end();
        }
    }
}
