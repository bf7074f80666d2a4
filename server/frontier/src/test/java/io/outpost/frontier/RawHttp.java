package io.outpost.frontier;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A minimal HTTP client speaking exactly like frontier_client (HTTP/1.0 request line, CRLF headers), reading the
 * response as raw bytes so the tests see the exact framing (no chunking, Content-Length or close-delimited).
 */
final class RawHttp implements AutoCloseable {
    final Socket socket;
    final InputStream in;
    int status;
    final Map<String, String> headers = new LinkedHashMap<>();
    String protocol;

    private RawHttp(Socket s, InputStream in) {
        this.socket = s;
        this.in = in;
    }

    /** Sends the request and reads the status line and headers. */
    static RawHttp send(int port, String target, String version, Map<String, String> headers) throws IOException {
        Socket s = open(port);
        // as a real client reads: not a byte a call
        return sendOn(s, new BufferedInputStream(s.getInputStream(), 64 << 10), target, version, headers);
    }

    /**
     * As {@link #send}, from the local address {@code from} (a loopback address such as 127.0.0.2): the server
     * tells clients apart by their address, so this is another client.
     */
    static RawHttp sendFrom(String from, int port, String target, String version, Map<String, String> headers)
            throws IOException {
        Socket s = new Socket();
        s.bind(new java.net.InetSocketAddress(from, 0));
        s.connect(new java.net.InetSocketAddress("127.0.0.1", port));
        s.setSoTimeout(60_000);
        return sendOn(s, new BufferedInputStream(s.getInputStream(), 64 << 10), target, version, headers);
    }

    private static Socket open(int port) throws IOException {
        Socket s = new Socket("127.0.0.1", port);
        s.setSoTimeout(60_000);
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
        RawHttp r = new RawHttp(s, in);
        r.readHead();
        return r;
    }

    /**
     * One connection used for request after request, as frontier_client uses it (HTTP/1.0 with {@code Connection:
     * keep-alive}); opened again after an answer that the server ends by closing.
     */
    static final class Persistent implements AutoCloseable {
        private final int port;
        private Socket socket;
        private InputStream in;
        private int opened;

        Persistent(int port) {
            this.port = port;
        }

        /** The body of a GET of {@code target}. */
        byte[] get(String target, Map<String, String> headers) throws IOException {
            if (socket == null) {
                socket = open(port);
                in = new BufferedInputStream(socket.getInputStream(), 64 << 10);
                opened++;
            }
            Map<String, String> h = new LinkedHashMap<>(headers);
            h.put("Connection", "keep-alive");
            RawHttp r = sendOn(socket, in, target, "HTTP/1.0", h);
            byte[] body = r.body();
            if (r.header("Content-Length") == null || !"keep-alive".equalsIgnoreCase(r.header("Connection"))) {
                close();
            }
            return body;
        }

        int port() {
            return port;
        }

        /** Connections opened so far. */
        int opened() {
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

    private void readHead() throws IOException {
        String st = line();
        String[] parts = st.split(" ", 3);
        protocol = parts[0];
        status = Integer.parseInt(parts[1]);
        String h;
        while (!(h = line()).isEmpty()) {
            int i = h.indexOf(':');
            headers.put(h.substring(0, i).toLowerCase(Locale.ROOT), h.substring(i + 1).trim());
        }
    }

    String header(String name) {
        return headers.get(name.toLowerCase(Locale.ROOT));
    }

    /** Reads until {@code marker} has been seen; returns everything read so far. */
    byte[] readUntil(String marker, ByteArrayOutputStream sofar) throws IOException {
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
    byte[] body(ByteArrayOutputStream sofar) throws IOException {
        String cl = header("Content-Length");
        if (cl != null && sofar.size() == 0) {
            byte[] b = new byte[Integer.parseInt(cl)]; // read into place, as a client reading a known length would
            int n = in.readNBytes(b, 0, b.length);
            return n == b.length ? b : java.util.Arrays.copyOf(b, n);
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

    byte[] body() throws IOException {
        return body(new ByteArrayOutputStream());
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
