package io.outpost.server.bench;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * One keep-alive HTTP/1.1 connection from a loopback address of its own (127.0.0.n), so that concurrent clients are
 * distinct clients to the service, whose Frontier per-client limit counts requests by remote address, as the jobs of
 * a grid site are. Reads bodies by Content-Length or chunked.
 */
final class LoopbackClient implements AutoCloseable {
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private int status;

    LoopbackClient(int port, int client) throws IOException {
        socket = new Socket(InetAddress.getLoopbackAddress(), port,
                InetAddress.getByAddress(new byte[] {127, 0, 0, (byte) (2 + client)}), 0);
        socket.setTcpNoDelay(true);
        in = new BufferedInputStream(socket.getInputStream(), 64 << 10);
        out = socket.getOutputStream();
    }

    /** The body of a GET of {@code target}; {@link #status} gives the status. */
    byte[] get(String target, String frontierId) throws IOException {
        out.write(("GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Frontier-Id: " + frontierId + "\r\n\r\n")
                .getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
        String statusLine = line();
        status = Integer.parseInt(statusLine.split(" ")[1]);
        long length = -1;
        boolean chunked = false;
        for (String h = line(); !h.isEmpty(); h = line()) {
            String lower = h.toLowerCase(Locale.ROOT);
            if (lower.startsWith("content-length:")) {
                length = Long.parseLong(h.substring(15).trim());
            } else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
                chunked = true;
            }
        }
        if (chunked) {
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            for (int n = Integer.parseInt(line().split(";")[0].trim(), 16); n > 0;
                 n = Integer.parseInt(line().split(";")[0].trim(), 16)) {
                body.write(in.readNBytes(n));
                line();
            }
            for (String t = line(); !t.isEmpty(); t = line()) {
                // trailers
            }
            return body.toByteArray();
        }
        if (length < 0) {
            throw new IOException("neither Content-Length nor chunked: " + statusLine);
        }
        byte[] body = in.readNBytes((int) length);
        if (body.length != length) {
            throw new IOException("connection closed after " + body.length + " of " + length + " bytes");
        }
        return body;
    }

    int status() {
        return status;
    }

    private String line() throws IOException {
        StringBuilder s = new StringBuilder();
        for (int c = in.read(); c != '\n'; c = in.read()) {
            if (c < 0) {
                throw new IOException("connection closed");
            }
            if (c != '\r') {
                s.append((char) c);
            }
        }
        return s.toString();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
