package io.outpost.testkit;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.Inflater;
import javax.xml.parsers.DocumentBuilderFactory;
import org.xml.sax.InputSource;

/**
 * Decoder of a Frontier response that enforces every rule of docs/shared frontier-protocol.md §2: exact envelope
 * text, attribute order, keepalives only at the start of data, 76-column base64 without a final newline, md5 over
 * the decoded (compressed) bytes, zlib format, full_size, record structure and record count. Throws AssertionError
 * naming the broken rule. The Frontier module's tests and the load grid's COOL jobs read answers with it.
 */
public final class FrontierDecoder {
    private static final String HEAD = "<?xml version=\"1.0\" encoding=\"US-ASCII\"?>\n"
            + "<!DOCTYPE frontier SYSTEM \"http://frontier.fnal.gov/frontier.dtd\">\n"
            + "<frontier version=\"3.42\" xmlversion=\"1.0\">\n";
    private static final Pattern PAYLOAD = Pattern.compile(
            "  <payload type=\"([^\"]*)\" version=\"([^\"]*)\" encoding=\"([^\"]*)\">\n"
                    + "   <data>((?:\n   <keepalive />)*)([A-Za-z0-9+/=\n]*)</data>\n"
                    + "   <quality error=\"([01])\" (?:message=\"([^\"]*)\" )?(?:max_age=\"([0-9]+)\" )?"
                    + "(?:md5=\"([0-9a-f]{32})\" )?(?:records=\"([0-9]+)\" )?full_size=\"([0-9]+)\"/>\n  </payload>\n");
    private static final Pattern GLOBAL = Pattern.compile("\n  <global_error msg=\"([^\"]*)\"/>\n");

    public record Payload(String type, String version, String encoding, int keepalives, boolean error, String message,
                   long maxAge, String md5, long records, long fullSize, byte[] binary, List<List<String>> rows) {
        /** Column names from the metadata record. */
        public List<String> columns() {
            List<String> c = new ArrayList<>();
            for (int i = 0; i < rows.get(0).size(); i += 2) {
                c.add(rows.get(0).get(i));
            }
            return c;
        }

        public List<String> types() {
            List<String> c = new ArrayList<>();
            for (int i = 1; i < rows.get(0).size(); i += 2) {
                c.add(rows.get(0).get(i));
            }
            return c;
        }

        public List<List<String>> data() {
            return rows.subList(1, rows.size());
        }
    }

    public record Response(List<Payload> payloads, int declaredPayloads, String globalError) {
        public Payload only() {
            if (payloads.size() != 1) {
                throw new AssertionError("expected one payload, got " + payloads.size());
            }
            return payloads.get(0);
        }
    }

    public static Response decode(byte[] bytes) {
        for (byte b : bytes) {
            check(b >= 0, "body must be US-ASCII");
        }
        String s = new String(bytes, StandardCharsets.US_ASCII);
        wellFormed(s);
        check(s.startsWith(HEAD), "envelope head");
        check(s.endsWith("</frontier>\n"), "envelope end");
        int pos = HEAD.length();
        List<Payload> payloads = new ArrayList<>();
        int declared = -1;
        String tx = " <transaction payloads=\"";
        if (s.startsWith(tx, pos)) {
            int q = s.indexOf("\">\n", pos);
            declared = Integer.parseInt(s.substring(pos + tx.length(), q));
            pos = q + 3;
            Matcher m = PAYLOAD.matcher(s);
            while (m.find(pos) && m.start() == pos) {
                payloads.add(payload(m));
                pos = m.end();
            }
            check(s.startsWith(" </transaction>\n", pos), "transaction end at " + pos + ": "
                    + s.substring(pos, Math.min(s.length(), pos + 200)));
            pos += " </transaction>\n".length();
        }
        String global = null;
        Matcher g = GLOBAL.matcher(s);
        if (g.find(pos) && g.start() == pos) {
            global = g.group(1);
            pos = g.end();
        }
        check(pos == s.length() - "</frontier>\n".length(), "unexpected text before </frontier>: "
                + s.substring(pos, Math.min(s.length(), pos + 200)));
        return new Response(payloads, declared, global);
    }

    private static Payload payload(Matcher m) {
        String encoding = m.group(3);
        int keepalives = m.group(4).isEmpty() ? 0 : m.group(4).split("<keepalive />", -1).length - 1;
        String b64 = m.group(5);
        boolean error = m.group(6).equals("1");
        String md5 = m.group(9);
        long records = m.group(10) == null ? -1 : Long.parseLong(m.group(10));
        long fullSize = Long.parseLong(m.group(11));
        long maxAge = m.group(8) == null ? 0 : Long.parseLong(m.group(8));
        // base64 layout: 76-column lines joined by \n, no final newline, only the last line shorter
        if (!b64.isEmpty()) {
            String[] lines = b64.split("\n", -1);
            for (int i = 0; i < lines.length; i++) {
                check(i == lines.length - 1 ? lines[i].length() <= 76 && !lines[i].isEmpty() : lines[i].length() == 76,
                        "base64 line " + i + " has length " + lines[i].length());
            }
        }
        byte[] wire = Base64.getDecoder().decode(b64.replace("\n", ""));
        if (error) {
            check(m.group(7) != null, "payload error without message");
            check(records == -1 && fullSize == 0, "payload error carries no records and full_size 0");
            if (md5 != null) {
                check(md5.equals(md5(wire)), "md5 of error payload");
            }
            return new Payload(m.group(1), m.group(2), encoding, keepalives, true, m.group(7), maxAge, md5, records,
                    fullSize, wire, List.of());
        }
        check(m.group(7) == null, "no message on success");
        check(md5 != null && md5.equals(md5(wire)), "md5 over the decoded (compressed) bytes");
        check(records >= 0, "records present");
        byte[] plain;
        check(encoding.startsWith("BLOB"), "encoding starts with BLOB");
        if (encoding.contains("zip")) {
            check(wire.length >= 2 && (wire[0] & 0xff) == 0x78 && ((wire[0] & 0xff) * 256 + (wire[1] & 0xff)) % 31 == 0,
                    "zlib header");
            plain = inflate(wire);
        } else {
            plain = wire;
        }
        check(plain.length == fullSize, "full_size " + fullSize + " vs decoded " + plain.length);
        List<List<String>> rows = records(plain);
        check(!rows.isEmpty() && rows.get(0).size() % 2 == 0, "metadata record of name/type pairs");
        int cols = rows.get(0).size() / 2;
        for (int i = 1; i < rows.size(); i++) {
            check(rows.get(i).size() == cols, "row " + i + " has " + rows.get(i).size() + " values, not " + cols);
        }
        check(rows.size() - 1 == records, "records=" + records + " but " + (rows.size() - 1) + " data rows");
        return new Payload(m.group(1), m.group(2), encoding, keepalives, false, null, maxAge, md5, records, fullSize,
                plain, rows);
    }

    /** Parses the record stream: only 0x06 strings, 0x86 NULLs, 0x07 end of record; ends right after an EOR. */
    public static List<List<String>> records(byte[] plain) {
        List<List<String>> rows = new ArrayList<>();
        List<String> cur = new ArrayList<>();
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(plain))) {
            int left = plain.length;
            boolean lastWasEor = false;
            while (left > 0) {
                int t = in.readUnsignedByte();
                left--;
                lastWasEor = false;
                switch (t) {
                    case 0x06 -> {
                        int n = in.readInt();
                        check(n >= 0 && n <= left - 4, "string length " + n);
                        byte[] b = in.readNBytes(n);
                        left -= 4 + n;
                        cur.add(new String(b, StandardCharsets.ISO_8859_1));
                        check(left > 0, "every array is followed by at least one byte");
                    }
                    case 0x86 -> cur.add(null);
                    case 0x07 -> {
                        rows.add(cur);
                        cur = new ArrayList<>();
                        lastWasEor = true;
                    }
                    default -> throw new AssertionError("unexpected type byte " + t);
                }
            }
            check(lastWasEor, "stream ends with EOR");
        } catch (IOException e) {
            throw new AssertionError("truncated record stream", e);
        }
        return rows;
    }

    public static byte[] inflate(byte[] z) {
        Inflater inf = new Inflater();
        try {
            inf.setInput(z);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] buf = new byte[65536];
            while (!inf.finished()) {
                int n = inf.inflate(buf);
                if (n == 0 && inf.needsInput()) {
                    throw new AssertionError("truncated zlib stream");
                }
                out.write(buf, 0, n);
            }
            check(inf.getRemaining() == 0, "no bytes after the zlib stream");
            return out.toByteArray();
        } catch (java.util.zip.DataFormatException e) {
            throw new AssertionError("zlib data error", e);
        } finally {
            inf.end();
        }
    }

    public static String md5(byte[] b) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(b));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void wellFormed(String s) {
        try {
            DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
            f.setValidating(false);
            f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
            f.newDocumentBuilder().parse(new InputSource(new StringReader(s)));
        } catch (Exception e) {
            throw new AssertionError("response is not well-formed XML: " + e.getMessage());
        }
    }

    public static void check(boolean ok, String rule) {
        if (!ok) {
            throw new AssertionError("Frontier rule broken: " + rule);
        }
    }
}
