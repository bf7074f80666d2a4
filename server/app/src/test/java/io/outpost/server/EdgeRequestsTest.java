package io.outpost.server;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.outpost.frontier.protocol.P1Codec;
import io.outpost.server.support.RunningService;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.LoggerFactory;

/**
 * Requests an attacker shapes at the edge (issue "Trust at the edges"): path spellings of the actuator and the error
 * page, unknown paths, raw bytes Tomcat cannot read in a path, a Frontier statement crafted to overflow the
 * analyser's stack, and Frontier refusals a shared cache must not keep.
 */
class EdgeRequestsTest {
    /** Not a management address: an anonymous client. */
    private static final String ANONYMOUS = "127.0.0.2";
    private static RunningService svc;

    @BeforeAll
    static void start() throws Exception {
        svc = RunningService.startSqliteDemo();
    }

    @AfterAll
    static void stop() {
        svc.close();
    }

    /** Every spelling Tomcat maps to the actuator's details shows nothing of them, also through a cache. */
    @ParameterizedTest
    @ValueSource(strings = {"/%61ctuator/prometheus", "/actuator;x=1/prometheus", "/actuator/prometheus;x=1",
            "/%61ctuator/%70rometheus", "/actuator/./prometheus", "/actuator//prometheus", "/x/../actuator/prometheus",
            "/actuator;/health/diskSpace", "/%61ctuator/health/diskSpace", "/actuator/health;/diskSpace",
            "/%61ctuator/metrics", "/actuator;/info", "/%61ctuator", "/actuator;", "/actuator%2Fprometheus",
            "/ACTUATOR/prometheus", "/%61ctuator/health", "/actuator;x=1/health", "/actuator/health;",
            "/actuator//health", "/actuator/./health"})
    void noSpellingShowsManagementData(String path) throws Exception {
        for (String from : List.of(ANONYMOUS, "127.0.0.1")) {
            for (Map<String, String> headers : List.of(Map.<String, String>of(), Map.of("Via", "1.1 squid"))) {
                Answer a = send(from, "GET " + path + " HTTP/1.1", headers);
                assertThat(a.status).as(path + " " + headers).isEqualTo(404);
                assertThat(a.body).as(path).doesNotContain("jvm_").doesNotContain("measurements")
                        .doesNotContain("Java").doesNotContain("/tmp").doesNotContain("\"components\"")
                        .doesNotContain("\"free\"").doesNotContain("Whitelabel");
            }
        }
        // the plain spellings: health's status for anyone, the details for a management address only
        assertThat(send(ANONYMOUS, "GET /actuator/health HTTP/1.1", Map.of()).body).isEqualTo("{\"status\":\"UP\"}");
        assertThat(send("127.0.0.1", "GET /actuator/prometheus HTTP/1.1", Map.of()).body).contains("jvm_");
    }

    @ParameterizedTest
    @ValueSource(strings = {"/error", "/error;", "/%65rror", "/error;x=1", "/%65%72%72%6f%72", "/error/", "/./error",
            "/error?x=1", "/x/../error", "//error"})
    void theErrorPageInEverySpellingIsNotFound(String path) throws Exception {
        for (String from : List.of(ANONYMOUS, "127.0.0.1")) {
            Answer a = send(from, "GET " + path + " HTTP/1.1", Map.of());
            assertThat(a.status).as(path).isEqualTo(404);
            assertThat(a.head).as(path).containsIgnoringCase("Content-Type: application/problem+json");
        }
    }

    /** An unknown page is the project's problem answer (never Spring's Whitelabel page); in /ui/, a page for people. */
    @ParameterizedTest
    @ValueSource(strings = {"/nope", "/ui/nope", "/ui/js/nope.js", "/v2/json/nodes", "/Outpost/nope"})
    void unknownPagesAreTheProjectsNotFound(String path) throws Exception {
        for (String accept : List.of("text/html,*/*;q=0.8", "application/json", "*/*")) {
            Answer a = send(ANONYMOUS, "GET " + path + " HTTP/1.1", Map.of("Accept", accept));
            if (path.startsWith("/ui/") && accept.startsWith("text/html")) {
                // a person in the conditions browser: a page that leads back into it
                assertThat(a.status).as(path).isEqualTo(404);
                assertThat(a.head).as(path).containsIgnoringCase("Content-Type: text/html")
                        .containsIgnoringCase("Cache-Control: no-store");
                assertThat(a.body).as(path).contains("<h1>Not found</h1>").contains("href=\"/ui/\"")
                        .doesNotContain("Whitelabel").doesNotContain("Spring");
                continue;
            }
            assertThat(a.status).as(path + " " + accept).isEqualTo(404);
            assertThat(a.head).as(path).containsIgnoringCase("Content-Type: application/problem+json")
                    .containsIgnoringCase("Cache-Control: no-store");
            assertThat(a.body).as(path).contains("\"status\":404").contains("no such resource")
                    .doesNotContain("Whitelabel").doesNotContain("timestamp").doesNotContain("Spring");
        }
    }

    /** Raw bytes Tomcat cannot take in a path: 400, no stack trace, in the answer or the log. */
    @ParameterizedTest
    @ValueSource(strings = {"/v1/json/n\u00e9des", "/v1/json/no\u0000des", "/v1/json\\nodes", "/\u00ff",
            "/actuator/\u00e9", "/v1/json/nodes\u0001"})
    void badBytesInAPathAreRefused(String path) throws Exception {
        try (LogCapture log = new LogCapture()) {
            Answer a = send(ANONYMOUS, "GET " + path + " HTTP/1.1", Map.of());
            assertThat(a.status).as(path).isEqualTo(400);
            assertThat(a.body).doesNotContain("Exception").doesNotContain("\tat ").doesNotContain("Tomcat");
            assertThat(log.text()).doesNotContain("Exception").doesNotContain("\tat ");
        }
        // the service is unharmed
        assertThat(send(ANONYMOUS, "GET /v1/json/nodes HTTP/1.1", Map.of()).status).isEqualTo(200);
    }

    /**
     * {@code NOT NOT … (50,000) 1=1} and long + and OR chains, 32 to a request: refused before parsing with a Frontier
     * payload error, nothing logged with a stack (it was 121 KB of StackOverflowError per payload).
     */
    @Test
    void deepOperatorChainsAreRefusedWithoutFloodingTheLog() throws Exception {
        List<String> chains = List.of("SELECT 1 FROM DUAL WHERE " + "NOT ".repeat(50_000) + "1=1",
                "SELECT 1" + "+1".repeat(20_000) + " FROM DUAL", "SELECT 1 FROM DUAL WHERE 1=1" + " OR 1=1".repeat(10_000));
        for (String sql : chains) {
            StringBuilder target = new StringBuilder("/Outpost/Frontier/type=frontier_request:1:DEFAULT&encoding=BLOB");
            for (int i = 1; i <= 32; i++) {
                target.append("&p").append(i).append('=').append(P1Codec.encode(sql));
            }
            try (LogCapture log = new LogCapture()) {
                var r = svc.get(target.toString(), "X-Frontier-Id", "edge-test");
                String body = new String(r.body(), StandardCharsets.ISO_8859_1);
                assertThat(r.statusCode()).isEqualTo(200); // Frontier's errors travel in the answer, as upstream
                assertThat(body).contains("error=\"1\"").contains("operators chained in one expression")
                        .doesNotContain("StackOverflow");
                assertThat(log.text().length()).as(log.text()).isLessThan(2_000);
                assertThat(log.text()).doesNotContain("StackOverflowError").doesNotContain("\tat ");
            }
        }
    }

    /** A Frontier request without X-Frontier-Id, at the URL real jobs use: its global error is not for caches. */
    @Test
    void frontierRefusalsAreNotStored() throws Exception {
        String target = "/Outpost/Frontier/type=frontier_request:1:DEFAULT&encoding=BLOB&p1="
                + P1Codec.encode("SELECT NODE_FULLPATH FROM OUTPOST_NODES WHERE NODE_ISLEAF = 1 ORDER BY NODE_FULLPATH");
        var refused = svc.get(target);
        assertThat(new String(refused.body(), StandardCharsets.ISO_8859_1)).contains("X-frontier-id header missing");
        assertThat(refused.headers().firstValue("Cache-Control")).hasValue("no-store");
        var answered = svc.get(target, "X-Frontier-Id", "edge-test");
        assertThat(answered.headers().firstValue("Cache-Control")).hasValueSatisfying(c -> assertThat(c)
                .startsWith("max-age="));
    }

    private record Answer(int status, String head, String body) {
    }

    /** Sends a request line as raw bytes (ISO-8859-1: one byte a character) and reads the whole answer. */
    private static Answer send(String from, String requestLine, Map<String, String> headers) throws IOException {
        try (Socket s = new Socket()) {
            s.bind(new InetSocketAddress(from, 0));
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), svc.port()));
            s.setSoTimeout(30_000);
            StringBuilder req = new StringBuilder(requestLine).append("\r\nHost: x\r\nConnection: close\r\n");
            headers.forEach((k, v) -> req.append(k).append(": ").append(v).append("\r\n"));
            OutputStream out = s.getOutputStream();
            out.write(req.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            InputStream in = s.getInputStream();
            String all = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
            int end = all.indexOf("\r\n\r\n");
            assertThat(end).as("an answer to " + requestLine + ": " + all).isPositive();
            String head = all.substring(0, end);
            int status = Integer.parseInt(head.substring(9, 12));
            return new Answer(status, head, all.substring(end + 4));
        }
    }

    /** Everything the service logs (every logger, every level) while open, formatted with its stack traces. */
    private static final class LogCapture implements AutoCloseable {
        private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

        LogCapture() {
            appender.start();
            root.addAppender(appender);
        }

        String text() {
            StringBuilder b = new StringBuilder();
            synchronized (appender) {
                for (ILoggingEvent e : appender.list) {
                    if (e.getLoggerName().equals("outpost.access")) {
                        continue; // the access log's one line per request
                    }
                    b.append(e.getLevel()).append(' ').append(e.getFormattedMessage()).append('\n');
                    var t = e.getThrowableProxy();
                    for (; t != null; t = t.getCause()) {
                        b.append(t.getClassName()).append(": ").append(t.getMessage()).append('\n');
                        for (var frame : t.getStackTraceElementProxyArray()) {
                            b.append('\t').append(frame.getSTEAsString()).append('\n');
                        }
                    }
                }
            }
            return b.toString();
        }

        @Override
        public void close() {
            root.detachAppender(appender);
        }
    }
}
