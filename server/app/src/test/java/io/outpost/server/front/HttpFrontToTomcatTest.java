package io.outpost.server.front;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.core.env.StandardEnvironment;

/**
 * The front against a "Tomcat" that is a plain socket the test answers by hand: a stop lets the request in flight
 * finish (for exactly as long as the test wants it in flight) and closes idle connections at once; a Tomcat that
 * cannot be reached or hangs up gives the client a clear error no cache keeps.
 */
class HttpFrontToTomcatTest {

    @Test
    void aStopClosesIdleClientsAtOnceAndLetsTheRequestInFlightFinish() throws Exception {
        try (ServerSocket tomcat = new ServerSocket(0, 10, InetAddress.getLoopbackAddress())) {
            HttpFront front = front(tomcat::getLocalPort);
            CompletableFuture<Void> stopped = null;
            try (Socket idle = new Socket(InetAddress.getLoopbackAddress(), front.port());
                 Socket busy = new Socket(InetAddress.getLoopbackAddress(), front.port())) {
                idle.setSoTimeout(30_000);
                busy.setSoTimeout(30_000);
                busy.getOutputStream().write("GET /slow HTTP/1.1\r\nHost: x\r\nX-Outpost-Front: forged\r\n\r\n"
                        .getBytes(StandardCharsets.US_ASCII));
                try (Socket fromFront = tomcat.accept()) {
                    fromFront.setSoTimeout(30_000);
                    String head = readHead(fromFront.getInputStream());
                    assertThat(head).startsWith("GET /slow HTTP/1.1").contains("X-Outpost-Front: s3cret 127.0.0.1")
                            .doesNotContain("forged");

                    stopped = CompletableFuture.runAsync(front::stop);
                    assertThat(idle.getInputStream().read()).as("idle connection closed by the stop").isEqualTo(-1);
                    assertThat(stopped).isNotDone();

                    fromFront.getOutputStream().write("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"
                            .getBytes(StandardCharsets.US_ASCII));
                    String answer = new String(busy.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
                    // the whole answer, then the end of the connection (readAllBytes returns); whether the answer
                    // says "Connection: close" depends on whether the stop reached this connection before it
                    assertThat(answer).startsWith("HTTP/1.1 200 OK").endsWith("\r\n\r\nhello");
                }
                stopped.get(30, TimeUnit.SECONDS);
                assertThat(front.isRunning()).isFalse();
            } finally {
                if (stopped == null) {
                    front.stop();
                }
            }
        }
    }

    @Test
    void whenTomcatCannotBeReachedOrHangsUpTheClientGetsAShortLivedError() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        HttpFront front = front(() -> closedPort);
        try {
            String answer = ask(front.port(), "GET /anything HTTP/1.1\r\nHost: x\r\n\r\n");
            assertThat(answer).startsWith("HTTP/1.1 503").containsIgnoringCase("cache-control: no-store")
                    .containsIgnoringCase("retry-after: 1").contains("try again");
        } finally {
            front.stop();
        }
        try (ServerSocket tomcat = new ServerSocket(0, 10, InetAddress.getLoopbackAddress())) {
            HttpFront hangsUp = front(tomcat::getLocalPort);
            try (Socket client = new Socket(InetAddress.getLoopbackAddress(), hangsUp.port())) {
                client.setSoTimeout(30_000);
                client.getOutputStream().write("GET /x HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                try (Socket fromFront = tomcat.accept()) {
                    readHead(fromFront.getInputStream());
                } // closed without a word
                String answer = new String(client.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
                assertThat(answer).startsWith("HTTP/1.1 502").containsIgnoringCase("cache-control: no-store");
            } finally {
                hangsUp.stop();
            }
        }
    }

    /**
     * Tomcat refuses a big upload at once (413, then it closes) while the client is still sending the body: the
     * client must still read the answer. Closing the client's connection with its body unread would make the
     * kernel reset it, and the answer would be lost before the client read it (a CI run saw exactly that).
     */
    @Test
    void anEarlyAnswerThatClosesReachesAClientStillSendingItsBody() throws Exception {
        try (ServerSocket tomcat = new ServerSocket(0, 10, InetAddress.getLoopbackAddress())) {
            HttpFront front = front(tomcat::getLocalPort);
            try (Socket client = new Socket(InetAddress.getLoopbackAddress(), front.port())) {
                client.setSoTimeout(30_000);
                byte[] part = new byte[1000];
                client.getOutputStream().write(("POST /write HTTP/1.1\r\nHost: x\r\nContent-Length: 100000000\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                client.getOutputStream().write(part);
                try (Socket fromFront = tomcat.accept()) {
                    InputStream in = fromFront.getInputStream();
                    assertThat(readHead(in)).startsWith("POST /write");
                    assertThat(in.readNBytes(part.length)).hasSize(part.length);
                    fromFront.getOutputStream().write(("HTTP/1.1 413 Content Too Large\r\nConnection: close\r\n"
                            + "Content-Length: 9\r\n\r\ntoo large").getBytes(StandardCharsets.US_ASCII));
                } // Tomcat gone, having read all it was sent
                byte[] more = new byte[64 * 1024];
                try {
                    for (int i = 0; i < 32; i++) { // 2 MB more of the body, as a client that does not look
                        client.getOutputStream().write(more);
                    }
                } catch (IOException stopped) {
                    // the front may stop reading after its linger time; the answer must still be there
                }
                String answer = new String(client.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
                assertThat(answer).startsWith("HTTP/1.1 413").endsWith("\r\n\r\ntoo large");
            } finally {
                front.stop();
            }
        }
    }

    /**
     * "Expect: 100-continue" reaches Tomcat, and Tomcat's 100 reaches the client: the body is asked for by the
     * servlet that reads it, not by the front on Tomcat's behalf (so an upload Tomcat refuses is refused before
     * the client sends it).
     */
    @Test
    void theClientSendsItsBodyWhenTomcatAsksForIt() throws Exception {
        try (ServerSocket tomcat = new ServerSocket(0, 10, InetAddress.getLoopbackAddress())) {
            HttpFront front = front(tomcat::getLocalPort);
            try (Socket client = new Socket(InetAddress.getLoopbackAddress(), front.port())) {
                client.setSoTimeout(30_000);
                client.getOutputStream().write(("POST /write HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n"
                        + "Expect: 100-continue\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                try (Socket fromFront = tomcat.accept()) {
                    fromFront.setSoTimeout(30_000);
                    InputStream in = fromFront.getInputStream();
                    assertThat(readHead(in)).startsWith("POST /write").containsIgnoringCase("expect: 100-continue");
                    fromFront.getOutputStream().write("HTTP/1.1 100 \r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                    assertThat(readHead(client.getInputStream())).startsWith("HTTP/1.1 100");
                    client.getOutputStream().write("hello".getBytes(StandardCharsets.US_ASCII));
                    assertThat(new String(in.readNBytes(5), StandardCharsets.US_ASCII)).isEqualTo("hello");
                    fromFront.getOutputStream().write("HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok"
                            .getBytes(StandardCharsets.US_ASCII));
                    String answer = readHead(client.getInputStream())
                            + new String(client.getInputStream().readNBytes(2), StandardCharsets.US_ASCII);
                    assertThat(answer).startsWith("HTTP/1.1 201").endsWith("\r\n\r\nok");
                }
            } finally {
                front.stop();
            }
        }
    }

    /**
     * A body Tomcat left with the front goes out in place of the empty stand-in, with Tomcat's status and headers
     * and its own length; a stand-in whose body is gone becomes a 502 nobody keeps, never an empty answer.
     */
    @Test
    void aBodyLeftWithTheFrontIsSentByIt() throws Exception {
        HandedBodies bodies = new HandedBodies(1 << 20);
        byte[] body = "left with the front, not sent by Tomcat".getBytes(StandardCharsets.US_ASCII);
        byte[] padded = java.util.Arrays.copyOf(body, body.length + 10); // only the parts' remaining bytes are sent
        String token = bodies.offer(java.nio.ByteBuffer.wrap(padded, 0, 20),
                java.nio.ByteBuffer.wrap(padded, 20, body.length - 20));
        try (ServerSocket tomcat = new ServerSocket(0, 10, InetAddress.getLoopbackAddress())) {
            HttpFront front = front(tomcat::getLocalPort, bodies);
            try (Socket client = new Socket(InetAddress.getLoopbackAddress(), front.port())) {
                client.setSoTimeout(30_000);
                client.getOutputStream().write("GET /Frontier/x HTTP/1.1\r\nHost: x\r\n\r\n"
                        .getBytes(StandardCharsets.US_ASCII));
                try (Socket fromFront = tomcat.accept()) {
                    readHead(fromFront.getInputStream());
                    fromFront.getOutputStream().write(("HTTP/1.1 200 OK\r\nCache-Control: max-age=300\r\n"
                            + handoffHeader() + ": " + token + "\r\nContent-Length: 0\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
                    String head = readHead(client.getInputStream());
                    assertThat(head).startsWith("HTTP/1.1 200").containsIgnoringCase("cache-control: max-age=300")
                            .containsIgnoringCase("content-length: " + body.length)
                            .doesNotContainIgnoringCase(handoffHeader());
                    assertThat(client.getInputStream().readNBytes(body.length)).isEqualTo(body);
                    assertThat(bodies.waitingBytes()).isZero();

                    // the same token again: its body was taken, so the stand-in must not go out
                    client.getOutputStream().write("GET /Frontier/y HTTP/1.1\r\nHost: x\r\n\r\n"
                            .getBytes(StandardCharsets.US_ASCII));
                    readHead(fromFront.getInputStream());
                    fromFront.getOutputStream().write(("HTTP/1.1 200 OK\r\n" + handoffHeader() + ": " + token
                            + "\r\nContent-Length: 0\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                    String lost = new String(client.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
                    assertThat(lost).startsWith("HTTP/1.1 502").containsIgnoringCase("cache-control: no-store");
                }
            } finally {
                front.stop();
            }
        }
    }

    private static String handoffHeader() {
        return io.outpost.frontier.BodyHandoff.HEADER;
    }

    private static HttpFront front(java.util.function.IntSupplier tomcatPort) {
        return front(tomcatPort, new HandedBodies(1 << 20));
    }

    private static HttpFront front(java.util.function.IntSupplier tomcatPort, HandedBodies bodies) {
        FrontSettings settings = new FrontSettings(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1, 10,
                Duration.ofSeconds(60), 32 * 1024, "/v1/", Duration.ofSeconds(20), true, "s3cret");
        HttpFront front = new HttpFront(null, settings, tomcatPort, new StandardEnvironment(), new SimpleMeterRegistry(),
                java.util.List.of(), bodies);
        front.start();
        return front;
    }

    private static String ask(int port, String request) throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout(30_000);
            s.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
            return new String(s.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
        }
    }

    private static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        while (!b.toString(StandardCharsets.US_ASCII).endsWith("\r\n\r\n")) {
            int c = in.read();
            if (c < 0) {
                break;
            }
            b.write(c);
        }
        return b.toString(StandardCharsets.US_ASCII);
    }
}
