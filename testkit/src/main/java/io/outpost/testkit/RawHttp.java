package io.outpost.testkit;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * HTTP over a plain socket, for what a client library would hide or refuse. Two ways in:
 * <ul>
 * <li>{@link #send}: a request written exactly as frontier_client writes it (a given HTTP version on the request
 * line, CRLF headers), the response read as raw bytes so a test sees the exact framing (no chunking,
 * Content-Length or close-delimited); {@link Persistent} keeps one connection for request after request;</li>
 * <li>{@link #get}: one GET whose request target goes on the request line as given, for targets that
 * {@link java.net.URI} would refuse (fuzz inputs, see {@link #target}), {@code Connection: close}, the whole
 * response read to the end, so that a connection the server drops shows as such rather than as an exception.</li>
 * </ul>
 */
public final class RawHttp implements AutoCloseable {
    /** Bounds every read: a server that hangs fails the test instead of stopping it. */
    private static final int READ_TIMEOUT_MILLIS = 60_000;

    public final Socket socket;
    public final InputStream in;
    /** Status code of the response. */
    public final int status;
    /** Response headers, names in lower case, in the order received. */
    public final Map<String, String> headers = new LinkedHashMap<>();
    /** The response's protocol, e.g. {@code HTTP/1.0}. */
    public final String protocol;

    private RawHttp(Socket socket, InputStream in) throws IOException {
        this.socket = socket;
        this.in = in;
        String[] statusLine = line().split(" ", 3);
        if (statusLine.length < 2 || !statusLine[0].startsWith("HTTP/")) {
            throw new IOException("not an HTTP status line: " + String.join(" ", statusLine));
        }
        protocol = statusLine[0];
        status = Integer.parseInt(statusLine[1]);
        String h;
        while (!(h = line()).isEmpty()) {
            int i = h.indexOf(':');
            headers.put(h.substring(0, i).toLowerCase(Locale.ROOT), h.substring(i + 1).trim());
        }
    }

    /** Sends a GET of {@code target} with {@code version} on the request line, and reads the status line and headers. */
    public static RawHttp send(int port, String target, String version, Map<String, String> headers) throws IOException {
        Socket s = open(port);
        try {
            // as a real client reads: not a byte a call
            return sendOn(s, new BufferedInputStream(s.getInputStream(), 64 << 10), target, version, headers);
        } catch (IOException | RuntimeException e) {
            s.close();
            throw e;
        }
    }

    /**
     * As {@link #send}, from the local address {@code from} (a loopback address such as 127.0.0.2): a server that
     * tells clients apart by their address sees another client.
     */
    public static RawHttp sendFrom(String from, int port, String target, String version, Map<String, String> headers)
            throws IOException {
        Socket s = new Socket();
        try {
            s.bind(new java.net.InetSocketAddress(from, 0));
            s.connect(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            s.setSoTimeout(READ_TIMEOUT_MILLIS);
            return sendOn(s, new BufferedInputStream(s.getInputStream(), 64 << 10), target, version, headers);
        } catch (IOException | RuntimeException e) {
            s.close();
            throw e;
        }
    }

    private static Socket open(int port) throws IOException {
        return open(port, null);
    }

    /** @param from the local (source) address, e.g. 127.0.0.2 to be another client on loopback; null: any */
    private static Socket open(int port, InetAddress from) throws IOException {
        Socket s = new Socket(InetAddress.getLoopbackAddress(), port, from, 0);
        s.setSoTimeout(READ_TIMEOUT_MILLIS);
        return s;
    }

    private static RawHttp sendOn(Socket s, InputStream in, String target, String version, Map<String, String> headers)
            throws IOException {
        StringBuilder b = new StringBuilder("GET " + target + " " + version + "\r\nHost: 127.0.0.1\r\n");
        headers.forEach((k, v) -> b.append(k).append(": ").append(v).append("\r\n"));
        b.append("\r\n");
        OutputStream out = s.getOutputStream();
        out.write(b.toString().getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
        return new RawHttp(s, in);
    }

    /**
     * One connection used for request after request, as frontier_client uses it (HTTP/1.0 with {@code Connection:
     * keep-alive}); opened again after an answer that the server ends by closing.
     */
    public static final class Persistent implements AutoCloseable {
        private final int port;
        private final InetAddress from;
        private Socket socket;
        private InputStream in;
        private int opened;
        private int status;

        public Persistent(int port) {
            this(port, null);
        }

        /** @param from the source address of this client's connections (null: any) */
        public Persistent(int port, InetAddress from) {
            this.port = port;
            this.from = from;
        }

        /** The body of a GET of {@code target}. */
        public byte[] get(String target, Map<String, String> headers) throws IOException {
            if (socket == null) {
                socket = open(port, from);
                in = new BufferedInputStream(socket.getInputStream(), 64 << 10);
                opened++;
            }
            Map<String, String> h = new LinkedHashMap<>(headers);
            h.put("Connection", "keep-alive");
            RawHttp r = sendOn(socket, in, target, "HTTP/1.0", h);
            byte[] body = r.body();
            status = r.status;
            if (r.header("Content-Length") == null || !"keep-alive".equalsIgnoreCase(r.header("Connection"))) {
                close();
            }
            return body;
        }

        public int port() {
            return port;
        }

        /** The HTTP status of the last answer {@link #get} read. */
        public int status() {
            return status;
        }

        /** Connections opened so far. */
        public int opened() {
            return opened;
        }

        @Override
        public void close() throws IOException {
            if (socket != null) {
                socket.close();
                socket = null;
            }
        }
    }

    private String line() throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) >= 0 && c != '\n') {
            if (c != '\r') {
                b.write(c);
            }
        }
        return b.toString(StandardCharsets.ISO_8859_1);
    }

    /** A response header by name (any case), or null. */
    public String header(String name) {
        return headers.get(name.toLowerCase(Locale.ROOT));
    }

    /** Reads until {@code marker} has been seen; returns everything read so far. */
    public byte[] readUntil(String marker, ByteArrayOutputStream sofar) throws IOException {
        byte[] m = marker.getBytes(StandardCharsets.US_ASCII);
        int c;
        while ((c = in.read()) >= 0) {
            sofar.write(c);
            byte[] a = sofar.toByteArray();
            if (a.length >= m.length && new String(a, a.length - m.length, m.length, StandardCharsets.US_ASCII).equals(marker)) {
                return a;
            }
        }
        throw new IOException("end of stream before " + marker);
    }

    /** The body: exactly Content-Length bytes if given, else everything up to the connection close. */
    public byte[] body(ByteArrayOutputStream sofar) throws IOException {
        String cl = header("Content-Length");
        if (cl != null && sofar.size() == 0) {
            byte[] b = new byte[Integer.parseInt(cl)]; // read into place, as a client reading a known length would
            int n = in.readNBytes(b, 0, b.length);
            return n == b.length ? b : Arrays.copyOf(b, n);
        }
        if (cl != null) {
            int n = Integer.parseInt(cl);
            byte[] b = in.readNBytes(n - sofar.size());
            sofar.write(b);
        } else {
            sofar.write(in.readAllBytes());
        }
        return sofar.toByteArray();
    }

    public byte[] body() throws IOException {
        return body(new ByteArrayOutputStream());
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }

    /** A response read to the connection's end: status line, headers and body; {@code status} is -1 if no status line came. */
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

    /**
     * One HTTP/1.1 GET of {@code target} exactly as given, {@code headers} as name, value, name, value…, with
     * {@code Connection: close}; the whole response is read to the end.
     */
    public static Response get(int port, String target, String... headers) throws IOException {
        try (Socket s = open(port)) {
            StringBuilder req = new StringBuilder("GET ").append(target).append(" HTTP/1.1\r\nHost: 127.0.0.1\r\n");
            for (int i = 0; i < headers.length; i += 2) {
                req.append(headers[i]).append(": ").append(headers[i + 1]).append("\r\n");
            }
            req.append("Connection: close\r\n\r\n");
            OutputStream out = s.getOutputStream();
            out.write(req.toString().getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            byte[] all = s.getInputStream().readAllBytes();
            String text = new String(all, StandardCharsets.ISO_8859_1);
            int end = text.indexOf("\r\n\r\n");
            if (!text.startsWith("HTTP/1.1 ") || end < 0 || text.length() < 12) {
                return new Response(-1, text, new byte[0]);
            }
            byte[] body = Arrays.copyOfRange(all, end + 4, all.length);
            return new Response(Integer.parseInt(text.substring(9, 12)), text.substring(0, end), body);
        }
    }
}
