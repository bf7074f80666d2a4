package io.outpost.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outpost.server.front.HttpFront;
import io.outpost.server.support.AccessLogCapture;
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
 * The HTTP front on the public port: memory hits answered by it, everything else by Tomcat behind it, in order,
 * with the client's own address, and its own clear refusals of unreadable requests.
 */
class HttpFrontTest {
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
    void thePublicPortIsTheFrontsAndHitsAreAnsweredThereWithTomcatsHeaders() throws Exception {
        assertThat(svc.port()).isEqualTo(svc.bean(HttpFront.class).port());
        String path = "/v1/bin/at/HEAD/" + T + "/all/DEMO/Calo/Pedestals";
        double memory = frontRequests("memory");
        double tomcat = frontRequests("tomcat");
        Exchange computed = exchange(new Socket(), "GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                .get(0);
        Exchange hit = exchange(new Socket(), "GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                .get(0);
        assertThat(hit.status).isEqualTo(200);
        assertThat(hit.body).isEqualTo(computed.body);
        for (String h : List.of("content-type", "content-length", "etag", "last-modified", "cache-control",
                "x-outpost-rows", "x-outpost-valid-since", "x-outpost-valid-until", "connection")) {
            assertThat(hit.headers.get(h)).as(h).isNotNull().isEqualTo(computed.headers.get(h));
        }
        assertThat(hit.headers.get("date")).matches("[A-Z][a-z]{2}, \\d{2} [A-Z][a-z]{2} \\d{4} \\d{2}:\\d{2}:\\d{2} GMT");
        // the metric reads go through the front too (to Tomcat): count only what this test sent
        assertThat(frontRequests("memory") - memory).isEqualTo(1.0);
        assertThat(frontRequests("tomcat") - tomcat).isEqualTo(3.0);
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
    void tomcatSeesTheClientsAddressAndNotOneAClientClaims() throws Exception {
        List<String> lines;
        try (AccessLogCapture log = new AccessLogCapture()) {
            Socket s = new Socket();
            s.bind(new InetSocketAddress("127.0.0.2", 0));
            List<Exchange> r = exchange(s, "GET /v1/json/nodes?client-address-test HTTP/1.1\r\nHost: x\r\n"
                    + "X-Outpost-Front: guessed 10.1.2.3\r\nConnection: close\r\n\r\n");
            assertThat(r.get(0).status).isEqualTo(400); // a query string the native API does not take
            lines = log.awaitLine("client-address-test");
        }
        assertThat(lines).filteredOn(l -> l.contains("client-address-test")).singleElement()
                .satisfies(l -> assertThat(l).startsWith("127.0.0.2 ").doesNotContain("10.1.2.3"));
    }

    @Test
    void http10WithoutKeepAliveIsAnsweredAndClosedBothWays() throws Exception {
        String hitPath = "/v1/json/at/HEAD/" + (T + 4) + "/all/DEMO/Calo/Pedestals";
        for (int i = 0; i < 2; i++) { // a miss (Tomcat), then a hit (the front)
            List<Exchange> r = exchange(new Socket(), "GET " + hitPath + " HTTP/1.0\r\n\r\n");
            assertThat(r).hasSize(1);
            assertThat(r.get(0).status).isEqualTo(200);
            assertThat(r.get(0).body).isNotEmpty();
        }
    }

    @Test
    void unreadableRequestsGetAClear4xxThatNoCacheKeeps() throws Exception {
        RawHttp.Response bad = RawHttp.get(svc.port(), "/v1/json/nodes HTTP/1.1 extra");
        assertThat(bad.status()).isBetween(400, 499);
        String longPath = "/v1/json/nodes/" + "x".repeat(40 * 1024);
        RawHttp.Response tooLong = RawHttp.get(svc.port(), longPath);
        assertThat(tooLong.status()).isEqualTo(414);
        assertThat(tooLong.header("Cache-Control")).contains("no-store");
        assertThat(new String(tooLong.body(), StandardCharsets.UTF_8)).contains("longer than");
        RawHttp.Response hugeHeader = RawHttp.get(svc.port(), "/v1/json/nodes", "X-Big", "y".repeat(40 * 1024));
        assertThat(hugeHeader.status()).isEqualTo(431);
        assertThat(hugeHeader.header("Cache-Control")).contains("no-store");
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

    @Test
    void turnedOffTomcatHasThePortAgain() throws Exception {
        try (RunningService plain = RunningService.startSqliteDemo("--outpost.front.enabled=false")) {
            assertThat(plain.context().getBeanNamesForType(HttpFront.class)).isEmpty();
            String path = "/v1/json/at/HEAD/" + T + "/all/DEMO/Calo/Pedestals";
            assertThat(plain.get(path).statusCode()).isEqualTo(200);
            assertThat(plain.get(path).body()).isEqualTo(svc.get(path).body());
        }
    }

    private static double frontRequests(String answered) throws Exception {
        return Arrays.stream(svc.getString("/actuator/prometheus").split("\n"))
                .filter(l -> l.startsWith("outpost_front_requests_total{") && l.contains("answered=\"" + answered + "\""))
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

    /**
     * A large Frontier answer is left by the servlet with the front and sent from there: the same bytes as the
     * servlet writes itself (asked on Tomcat's own loopback port, where no front vouches for the request), with its
     * own length, counted; a small answer is written by Tomcat as before.
     */
    @Test
    void largeFrontierAnswersAreSentByTheFrontFromWhereTheServletLeftThem() throws Exception {
        String table = svc.bean(io.outpost.store.IovStore.class).folder("/DEMO/Calo/Pedestals").iovTable();
        String big = "/Outpost/Frontier/type=frontier_request:1:DEFAULT&encoding=BLOB&p1=" + io.outpost.frontier.P1Codec
                .encode("SELECT OBJECT_ID, CHANNEL_ID, IOV_SINCE, IOV_UNTIL, SYS_INSTIME FROM " + table
                        + " ORDER BY OBJECT_ID");
        double before = svc.metric("outpost_front_handed_bodies_total");
        java.net.http.HttpResponse<byte[]> viaFront = svc.get(big, "X-Frontier-Id", "front-test");
        assertThat(viaFront.statusCode()).isEqualTo(200);
        assertThat(viaFront.headers().firstValue(io.outpost.frontier.BodyHandoff.HEADER)).isEmpty();
        assertThat(viaFront.body().length).isGreaterThanOrEqualTo(io.outpost.frontier.BodyHandoff.MIN_BYTES);
        assertThat(viaFront.headers().firstValueAsLong("Content-Length")).hasValue(viaFront.body().length);
        assertThat(new String(viaFront.body(), StandardCharsets.US_ASCII)).contains("records=\"768\"")
                .endsWith("</frontier>\n");
        assertThat(svc.metric("outpost_front_handed_bodies_total")).isEqualTo(before + 1);

        assertThat(onTomcatsPort(big).body()).isEqualTo(viaFront.body());

        String small = "/Outpost/Frontier/type=frontier_request:1:DEFAULT&encoding=BLOB&p1=" + io.outpost.frontier.P1Codec
                .encode("SELECT NODE_FULLPATH FROM OUTPOST_NODES WHERE NODE_ISLEAF = 1 ORDER BY NODE_FULLPATH");
        assertThat(new String(svc.get(small, "X-Frontier-Id", "front-test").body(), StandardCharsets.US_ASCII))
                .contains("<quality error=\"0\"");
        assertThat(svc.metric("outpost_front_handed_bodies_total")).isEqualTo(before + 1);
    }

    /**
     * A large native answer computed by Tomcat (a miss) is left with the front too, and sent from there with its
     * length; Tomcat's own port writes the same bytes, and the next request is a memory hit of the front.
     */
    @Test
    void largeNativeMissesAreSentByTheFrontFromWhereTheServletLeftThem() throws Exception {
        String path = "/v1/json/browse/HEAD/0/9223372036854775807/all/cs/DEMO/Calo/Pedestals";
        double handed = svc.metric("outpost_front_handed_bodies_total");
        double memory = frontRequests("memory");
        java.net.http.HttpResponse<byte[]> miss = svc.get(path);
        assertThat(miss.statusCode()).isEqualTo(200);
        assertThat(miss.headers().firstValue(io.outpost.frontier.BodyHandoff.HEADER)).isEmpty();
        assertThat(miss.body().length).isGreaterThanOrEqualTo(io.outpost.frontier.BodyHandoff.MIN_BYTES);
        assertThat(miss.headers().firstValueAsLong("Content-Length")).hasValue(miss.body().length);
        assertThat(miss.headers().firstValue("ETag")).isPresent();
        assertThat(svc.metric("outpost_front_handed_bodies_total")).isEqualTo(handed + 1);

        assertThat(onTomcatsPort(path).body()).isEqualTo(miss.body());
        java.net.http.HttpResponse<byte[]> hit = svc.get(path);
        assertThat(hit.body()).isEqualTo(miss.body());
        assertThat(frontRequests("memory") - memory).isEqualTo(1.0);
        assertThat(svc.metric("outpost_front_handed_bodies_total")).isEqualTo(handed + 1);
    }

    /** A GET on Tomcat's own loopback port, where no front vouches for the request (so nothing is handed). */
    private static java.net.http.HttpResponse<byte[]> onTomcatsPort(String path) throws Exception {
        int tomcat = ((org.springframework.boot.web.server.context.WebServerApplicationContext) svc.context())
                .getWebServer().getPort();
        return java.net.http.HttpClient.newHttpClient().send(
                java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + tomcat + path))
                        .header("X-Frontier-Id", "front-test").build(),
                java.net.http.HttpResponse.BodyHandlers.ofByteArray());
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
