package io.outpost.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The raw client against a real HTTP server (the JDK's): both ways in (RawHttp.Persistent is exercised by
 * the Frontier tests against the servlet container, whose keep-alive rules it follows). */
class RawHttpTest {
    private HttpServer server;

    @BeforeEach
    void start() throws Exception {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            byte[] body = ("you asked for " + exchange.getRequestURI().getRawPath()).getBytes(StandardCharsets.US_ASCII);
            exchange.getResponseHeaders().add("X-Echo", exchange.getRequestHeaders().getFirst("X-Test"));
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    @Test
    void sendReadsStatusHeadersAndExactlyTheBody() throws Exception {
        try (RawHttp r = RawHttp.send(server.getAddress().getPort(), "/a/b", "HTTP/1.1", Map.of("X-Test", "one"))) {
            assertThat(r.status).isEqualTo(200);
            assertThat(r.protocol).isEqualTo("HTTP/1.1");
            assertThat(r.header("x-echo")).isEqualTo("one");
            assertThat(new String(r.body(), StandardCharsets.US_ASCII)).isEqualTo("you asked for /a/b");
        }
    }

    @Test
    void getSendsTheTargetAsGivenAndReadsToTheEnd() throws Exception {
        String target = RawHttp.target("/x y%41\u0001".getBytes(StandardCharsets.ISO_8859_1));
        assertThat(target).isEqualTo("/x%20y%41%01");
        RawHttp.Response r = RawHttp.get(server.getAddress().getPort(), target, "X-Test", "two");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.header("X-Echo")).hasValue("two");
        assertThat(new String(r.body(), StandardCharsets.US_ASCII)).isEqualTo("you asked for /x%20y%41%01");
    }
}
