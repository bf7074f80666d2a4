package io.outpost.client.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/** A small HTTP server on 127.0.0.1 for tests: answers with a handler and records every request. */
public final class FakeServer implements AutoCloseable {

    /** A request as received; {@code target} is the request-target (absolute-form when sent to a proxy). */
    public record Request(String method, String target, Map<String, String> headers) {
        public String header(String name) {
            return headers.get(name.toLowerCase(java.util.Locale.ROOT));
        }

        /** The path of the target, whether origin-form or absolute-form. */
        public String path() {
            return java.net.URI.create(target).getRawPath();
        }
    }

    /**
     * A reply; when {@code sendBytes < body.length} the server announces the whole length, sends that many bytes
     * and drops the connection (a truncated answer).
     */
    public record Reply(int status, Map<String, String> headers, byte[] body, int sendBytes) {
        public static Reply of(int status, byte[] body, String... headerPairs) {
            Map<String, String> h = new LinkedHashMap<>();
            for (int i = 0; i + 1 < headerPairs.length; i += 2) {
                h.put(headerPairs[i], headerPairs[i + 1]);
            }
            return new Reply(status, h, body, body.length);
        }

        public Reply truncatedTo(int n) {
            return new Reply(status, headers, body, n);
        }
    }

    @FunctionalInterface
    public interface Handler {
        Reply handle(Request request) throws IOException;
    }

    private final HttpServer server;
    private final ExecutorService executor;
    private final ConcurrentLinkedQueue<Request> requests = new ConcurrentLinkedQueue<>();

    private FakeServer(Handler handler) throws IOException {
        this(handler, new InetSocketAddress("127.0.0.1", 0));
    }

    private FakeServer(Handler handler, InetSocketAddress address) throws IOException {
        server = HttpServer.create(address, 64);
        executor = Executors.newFixedThreadPool(16);
        server.setExecutor(executor);
        server.createContext("/", ex -> serve(ex, handler));
        server.start();
    }

    public static FakeServer start(Handler handler) throws IOException {
        return new FakeServer(handler);
    }

    /** A server listening on {@code address} (e.g. [::1] at another server's port, for address-family tests). */
    public static FakeServer startOn(InetSocketAddress address, Handler handler) throws IOException {
        return new FakeServer(handler, address);
    }

    /** A URL where nothing listens: a port that was free a moment ago. */
    public static String deadUrl() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            return "http://127.0.0.1:" + s.getLocalPort();
        }
    }

    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    public int port() {
        return server.getAddress().getPort();
    }

    public List<Request> requests() {
        return new ArrayList<>(requests);
    }

    public int requestCount() {
        return requests.size();
    }

    private void serve(HttpExchange ex, Handler handler) throws IOException {
        Map<String, String> headers = new LinkedHashMap<>();
        ex.getRequestHeaders().forEach((k, v) -> headers.put(k.toLowerCase(java.util.Locale.ROOT), v.get(0)));
        Request req = new Request(ex.getRequestMethod(), ex.getRequestURI().toString(), headers);
        requests.add(req);
        Reply reply;
        try {
            reply = handler.handle(req);
        } catch (RuntimeException | IOException e) {
            reply = Reply.of(500, ("handler failed: " + e).getBytes());
        }
        reply.headers().forEach((k, v) -> ex.getResponseHeaders().add(k, v));
        if (reply.sendBytes() < reply.body().length) {
            ex.getResponseHeaders().set("Connection", "close");
        }
        ex.sendResponseHeaders(reply.status(), reply.body().length == 0 ? -1 : reply.body().length);
        OutputStream out = ex.getResponseBody();
        if (reply.sendBytes() < reply.body().length) {
            out.write(reply.body(), 0, reply.sendBytes());
            out.flush();
            // An exception escaping the handler makes the JDK server drop the connection mid-body.
            throw new IOException("truncated on purpose after " + reply.sendBytes() + " bytes");
        }
        try (out) {
            out.write(reply.body());
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
