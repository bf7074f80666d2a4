package io.outpost.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outpost.server.support.RunningService;
import io.outpost.store.demo.DemoData;
import io.outpost.testkit.RawHttp;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Tomcat alone on the public port: memory hits answered before the servlet dispatch with the servlet's own headers,
 * pipelined requests in order whatever answers them, the client's own address whatever it claims, clear 4xx for
 * unreadable requests, idle connections closed, and the connection limit.
 */
class OneServerTest {
    private static final long T = DemoData.T0 + 7 * DemoData.HOUR + 11;
    private static RunningService svc;

    @BeforeAll
    static void start() throws Exception {
        svc = RunningService.startSqliteDemo("--logging.level.outpost.access=info");
    }

    @AfterAll
    static void stop() {
        svc.close();
    }

    @Test
    void aMemoryHitCarriesTheComputedAnswersHeadersAndIsCounted() throws Exception {
        String path = "/v1/bin/at/HEAD/" + T + "/all/DEMO/Calo/Pedestals";
        Exchange computed = exchange(new Socket(), "GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                .get(0);
        double memory = memoryRequests();
        Exchange hit = exchange(new Socket(), "GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                .get(0);
        assertThat(hit.status).isEqualTo(200);
        assertThat(hit.body).isEqualTo(computed.body);
        for (String h : List.of("content-type", "content-length", "etag", "last-modified", "cache-control",
                "x-outpost-rows", "x-outpost-valid-since", "x-outpost-valid-until", "connection")) {
            assertThat(hit.headers.get(h)).as(h).isNotNull().isEqualTo(computed.headers.get(h));
        }
        assertThat(hit.headers.get("date")).matches("[A-Z][a-z]{2}, \\d{2} [A-Z][a-z]{2} \\d{4} \\d{2}:\\d{2}:\\d{2} GMT");
        assertThat(memoryRequests() - memory).isEqualTo(1.0);
    }

    @Test
    void pipelinedRequestsAreAnsweredInOrderWhateverAnswersThem() throws Exception {
        String hitPath = "/v1/json/at/HEAD/" + (T + 1) + "/all/DEMO/Calo/Pedestals";
        String expectedHit = new String(svc.get(hitPath).body(), StandardCharsets.UTF_8);
        String[] paths = {"/v1/json/at/HEAD/" + (T + 2) + "/all/DEMO/Calo/Pedestals", hitPath,
                "/v1/json/channels/DEMO/DCS/HV", hitPath, "/v1/json/at/HEAD/" + (T + 3) + "/all/DEMO/Calo/Pedestals"};
        StringBuilder requests = new StringBuilder();
        for (String p : paths) {
            requests.append("GET ").append(p).append(" HTTP/1.1\r\nHost: x\r\n\r\n");
        }
        requests.append("GET /actuator/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        List<Exchange> answers = exchange(new Socket(), requests.toString());
        assertThat(answers).hasSize(paths.length + 1);
        for (int i = 0; i < paths.length; i++) {
            assertThat(answers.get(i).status).isEqualTo(200);
            assertThat(new String(answers.get(i).body, StandardCharsets.UTF_8))
                    .isEqualTo(new String(svc.get(paths[i]).body(), StandardCharsets.UTF_8));
        }
        assertThat(new String(answers.get(1).body, StandardCharsets.UTF_8)).isEqualTo(expectedHit);
        assertThat(new String(answers.get(paths.length).body, StandardCharsets.UTF_8)).contains("\"UP\"");
    }

    @Test
    void http10WithoutKeepAliveIsAnsweredAndClosed() throws Exception {
        String hitPath = "/v1/json/at/HEAD/" + (T + 4) + "/all/DEMO/Calo/Pedestals";
        for (int i = 0; i < 2; i++) { // a miss (the servlet), then a memory hit (the valve)
            List<Exchange> r = exchange(new Socket(), "GET " + hitPath + " HTTP/1.0\r\n\r\n");
            assertThat(r).hasSize(1);
            assertThat(r.get(0).status).isEqualTo(200);
            assertThat(r.get(0).body).isNotEmpty();
        }
    }

    @Test
    void unreadableRequestsGetAClear4xxThatShowsNothingInternal() throws Exception {
        RawHttp.Response bad = RawHttp.get(svc.port(), "/v1/json/nodes HTTP/1.1 extra");
        assertThat(bad.status()).isBetween(400, 499);
        String longPath = "/v1/json/nodes/" + "x".repeat(40 * 1024);
        RawHttp.Response tooLong = RawHttp.get(svc.port(), longPath);
        assertThat(tooLong.status()).isBetween(400, 499);
        RawHttp.Response hugeHeader = RawHttp.get(svc.port(), "/v1/json/nodes", "X-Big", "y".repeat(40 * 1024));
        assertThat(hugeHeader.status()).isBetween(400, 499);
        for (RawHttp.Response r : List.of(bad, tooLong, hugeHeader)) {
            String text = r.head() + new String(r.body(), StandardCharsets.ISO_8859_1);
            assertThat(text).doesNotContainIgnoringCase("tomcat").doesNotContain("Exception").doesNotContain("at org.");
        }
    }

    @Test
    void beyondTheConnectionLimitNewClientsWaitUntilOneLeaves() throws Exception {
        try (RunningService limited = RunningService.startSqliteDemo("--server.tomcat.max-connections=2")) {
            Socket first = connectAndAsk(limited.port());
            Socket second = connectAndAsk(limited.port());
            try (Socket third = new Socket(InetAddress.getLoopbackAddress(), limited.port())) {
                third.getOutputStream().write(("GET /actuator/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                third.setSoTimeout(500);
                InputStream in = third.getInputStream();
                // not accepted, so not answered, while two clients are connected
                assertThatThrownBy(in::read).isInstanceOf(SocketTimeoutException.class);
                first.close();
                third.setSoTimeout(30_000);
                String answer = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
                assertThat(answer).startsWith("HTTP/1.1 200").contains("\"UP\"");
            } finally {
                first.close();
                second.close();
            }
        }
    }

    /** A connection that never sends a request is closed after connection-timeout, one idle after keep-alive-timeout. */
    @Test
    void silentAndIdleConnectionsAreClosed() throws Exception {
        try (RunningService strict = RunningService.startSqliteDemo("--server.tomcat.connection-timeout=1s",
                "--server.tomcat.keep-alive-timeout=1s")) {
            try (Socket silent = new Socket(InetAddress.getLoopbackAddress(), strict.port());
                 Socket idle = connectAndAsk(strict.port())) {
                silent.setSoTimeout(30_000);
                assertThat(silent.getInputStream().read()).as("closed without a request").isEqualTo(-1);
                assertThat(idle.getInputStream().read()).as("closed once idle").isEqualTo(-1);
            }
        }
    }

    /** Tomcat's connection meter counts the open connections (kept open by the 60 s keep-alive of the defaults). */
    @Test
    void openConnectionsAreCounted() throws Exception {
        try (Socket first = connectAndAsk(svc.port()); Socket second = connectAndAsk(svc.port())) {
            // this service's connector only: Tomcat's meters are JVM-wide, other tests' services show there too
            // Tomcat's name of this service's connector, as its meters are tagged ("http-nio2-auto-N" on port 0)
            var tomcat = (org.springframework.boot.tomcat.TomcatWebServer)
                    ((org.springframework.boot.web.server.context.WebServerApplicationContext) svc.context()).getWebServer();
            String name = ((org.apache.coyote.AbstractProtocol<?>) tomcat.getTomcat().getConnector().getProtocolHandler())
                    .getName().replace("\"", "").replaceFirst("-" + svc.port() + "$", ""); // registered before binding
            java.util.regex.Pattern connector = java.util.regex.Pattern.compile(
                    "name=\"" + java.util.regex.Pattern.quote(name) + "\"");
            assertThat(svc.metric("tomcat_connections_current_connections", connector)).isGreaterThanOrEqualTo(2);
            assertThat(svc.metric("tomcat_connections_config_max_connections", connector)).isEqualTo(1000);
        }
    }

    /**
     * A stop (SIGTERM) stops accepting, lets the request in flight finish with its answer, then closes: here the
     * request waits for the only read connection, which the test holds until the stop has begun.
     */
    @Test
    void aStopLetsTheRequestInFlightFinish() throws Exception {
        RunningService stopping = RunningService.startSqliteDemo("--outpost.database.read-pool-size=1",
                "--outpost.database.connection-timeout=60s");
        java.util.concurrent.CompletableFuture<Void> stopped = null;
        try (Socket busy = new Socket(InetAddress.getLoopbackAddress(), stopping.port())) {
            busy.setSoTimeout(60_000);
            com.zaxxer.hikari.HikariDataSource pool = stopping.bean(io.outpost.store.IovStore.class).database()
                    .readPool();
            try (java.sql.Connection held = pool.getConnection()) {
                busy.getOutputStream().write(("GET /v1/json/count/HEAD/0/" + T + "/all/DEMO/Calo/Pedestals HTTP/1.1\r\n"
                        + "Host: x\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                long deadline = System.nanoTime() + 30_000_000_000L;
                while (pool.getHikariPoolMXBean().getThreadsAwaitingConnection() < 1) {
                    assertThat(System.nanoTime()).as("the request waits for the connection").isLessThan(deadline);
                    Thread.onSpinWait();
                }
                stopped = java.util.concurrent.CompletableFuture.runAsync(stopping::close);
                assertThat(stopped).as("the stop waits for the request in flight").isNotDone();
            }
            Exchange answer = read(new BufferedInputStream(busy.getInputStream()));
            assertThat(answer.status).isEqualTo(200);
            assertThat(new String(answer.body, StandardCharsets.UTF_8)).contains("count");
            stopped.get(60, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(stopping.context().isActive()).isFalse();
        } finally {
            if (stopped == null) {
                stopping.close();
            }
        }
    }

    /** Requests the native API answered from memory so far (the timer's count). */
    private static double memoryRequests() throws Exception {
        return Arrays.stream(svc.getString("/actuator/prometheus").split("\n"))
                .filter(l -> l.startsWith("outpost_requests_seconds_count{") && l.contains("path=\"memory\""))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
    }

    private static Socket connectAndAsk(int port) throws IOException {
        Socket s = new Socket(InetAddress.getLoopbackAddress(), port);
        s.setSoTimeout(30_000);
        s.getOutputStream().write("GET /actuator/health HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        Exchange e = read(new BufferedInputStream(s.getInputStream()));
        assertThat(e.status).isEqualTo(200);
        return s;
    }

    /** One response as read off the socket. */
    private record Exchange(int status, Map<String, String> headers, byte[] body) {
    }

    /** Sends {@code requests} in one write on {@code s}, reads responses until the service closes the connection. */
    private static List<Exchange> exchange(Socket s, String requests) throws IOException {
        try (s) {
            if (!s.isConnected()) {
                s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), svc.port()));
            }
            s.setSoTimeout(30_000); // a hang fails the test
            s.getOutputStream().write(requests.getBytes(StandardCharsets.US_ASCII));
            InputStream in = new BufferedInputStream(s.getInputStream());
            List<Exchange> out = new java.util.ArrayList<>();
            while (true) {
                Exchange e = read(in);
                if (e == null) {
                    return out;
                }
                out.add(e);
            }
        }
    }

    /** One HTTP/1.1 response (Content-Length or chunked), null at the end of the stream. */
    private static Exchange read(InputStream in) throws IOException {
        String status = line(in);
        if (status == null) {
            return null;
        }
        Map<String, String> headers = new LinkedHashMap<>();
        for (String l = line(in); l != null && !l.isEmpty(); l = line(in)) {
            int colon = l.indexOf(':');
            headers.put(l.substring(0, colon).trim().toLowerCase(Locale.ROOT), l.substring(colon + 1).trim());
        }
        int code = Integer.parseInt(status.substring(9, 12));
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
            for (int n = Integer.parseInt(line(in).trim(), 16); n > 0; n = Integer.parseInt(line(in).trim(), 16)) {
                body.write(in.readNBytes(n));
                line(in);
            }
            line(in);
        } else if (headers.containsKey("content-length")) {
            body.write(in.readNBytes(Integer.parseInt(headers.get("content-length"))));
        } else if (code != 304) {
            body.write(in.readAllBytes());
        }
        return new Exchange(code, headers, body.toByteArray());
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder b = new StringBuilder();
        for (int c = in.read(); c >= 0; c = in.read()) {
            if (c == '\n') {
                return b.toString().stripTrailing();
            }
            b.append((char) c);
        }
        return b.isEmpty() ? null : b.toString();
    }
}
