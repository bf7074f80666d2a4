package io.outpost.server.support;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Optional;

/**
 * One HTTP/1.1 GET over a plain socket, for request targets that {@link java.net.URI} would refuse (fuzz inputs):
 * the target goes on the request line as given, {@code Connection: close}, and the whole response is read to the
 * end, so that a connection the service drops shows as such rather than as an exception of a client library.
 */
public final class RawHttp {
    private RawHttp() {
    }

    /** A response as read: status line, headers and body; {@code status} is -1 if no status line came. */
    public record Response(int status, String head, byte[] body) {
        public Optional<String> header(String name) {
            for (String line : head.split("\r\n")) {
                int colon = line.indexOf(':');
                if (colon > 0 && line.substring(0, colon).trim().equalsIgnoreCase(name)) {
                    return Optional.of(line.substring(colon + 1).trim());
                }
            }
            return Optional.empty();
        }
    }

    /** Keeps URL characters as they are (also '%', so that the input's own escapes stay), escapes every other byte. */
    public static String target(byte[] raw) {
        StringBuilder b = new StringBuilder(raw.length + 16);
        for (byte x : raw) {
            int c = x & 0xff;
            if (c > 0x20 && c < 0x7f && (Character.isLetterOrDigit(c) || "-._~!$&'()*+,;=:@/?%".indexOf(c) >= 0)) {
                b.append((char) c);
            } else {
                b.append('%').append(String.format(Locale.ROOT, "%02X", c));
            }
        }
        return b.toString();
    }

    public static Response get(int port, String target, String... headers) throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout(30_000); // a hang fails the test instead of stopping it
            StringBuilder req = new StringBuilder("GET ").append(target).append(" HTTP/1.1\r\nHost: 127.0.0.1\r\n");
            for (int i = 0; i < headers.length; i += 2) {
                req.append(headers[i]).append(": ").append(headers[i + 1]).append("\r\n");
            }
            req.append("Connection: close\r\n\r\n");
            OutputStream out = s.getOutputStream();
            out.write(req.toString().getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            InputStream in = s.getInputStream();
            byte[] all = in.readAllBytes();
            String text = new String(all, StandardCharsets.ISO_8859_1);
            int end = text.indexOf("\r\n\r\n");
            if (!text.startsWith("HTTP/1.1 ") || end < 0 || text.length() < 12) {
                return new Response(-1, text, new byte[0]);
            }
            byte[] body = java.util.Arrays.copyOfRange(all, end + 4, all.length);
            return new Response(Integer.parseInt(text.substring(9, 12)), text.substring(0, end), body);
        }
    }
}
