package io.outpost.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.server.support.AccessLogCapture;
import io.outpost.server.support.RunningService;
import io.outpost.testkit.RawHttp;
import io.outpost.testkit.TempDirs;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What an anonymous client can learn or forge (issue "Hardening", items 5 to 8): access-log fields it cannot forge,
 * the actuator's health status and nothing more, no 500 for {@code /error}, error answers that do not echo input in
 * full; and a taken port ends the start with one line.
 */
class ExposureTest {
    /** Not in outpost.management.addresses (loopback's 127.0.0.1 and ::1 by default): an anonymous client. */
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

    @Test
    void clientSuppliedValuesCannotForgeAccessLogFields() throws Exception {
        String forged = "evil\" via=\"fake\" 10.0.0.1 \"GET /admin\" 200\tend";
        try (AccessLogCapture log = new AccessLogCapture();
             RawHttp r = RawHttp.sendFrom(ANONYMOUS, svc.port(), "/v1/json/nodes?x=%22a%22", "HTTP/1.1",
                     Map.of("X-Outpost-Client", forged, "Via", "1.1 a\"b", "Connection", "close"))) {
            r.body();
            String line = log.awaitLine("evil").stream().filter(l -> l.contains("evil")).findFirst().orElseThrow();
            assertThat(line).contains("client=\"evil\\\" via=\\\"fake\\\" 10.0.0.1 \\\"GET /admin\\\" 200\\x09end\"")
                    .contains("via=\"1.1 a\\\"b\"");
            // every field's quotes still pair up: the unescaped quotes are exactly the fields' own
            assertThat(line.replace("\\\"", "").chars().filter(c -> c == '"').count()).isEqualTo(8);
        }
    }

    @Test
    void anonymousClientsSeeHealthStatusOnly() throws Exception {
        assertThat(anonymousGet("/actuator/health")).isEqualTo("200 {\"status\":\"UP\"}");
        for (String hidden : List.of("/actuator/health/diskSpace", "/actuator/health/liveness", "/actuator/metrics",
                "/actuator/prometheus", "/actuator/info", "/actuator", "/actuator/metrics/jvm.info")) {
            String answer = anonymousGet(hidden);
            assertThat(answer).as(hidden).startsWith("404 ").doesNotContain("measurements").doesNotContain("Java")
                    .doesNotContain("/tmp");
        }
        // from a management address (loopback, straight): the details
        assertThat(svc.getString("/actuator/health")).contains("\"components\"");
        assertThat(svc.getString("/actuator/prometheus")).contains("jvm_");
        // ... but not when the request came through a cache on that address
        assertThat(svc.get("/actuator/prometheus", "Via", "1.1 squid").statusCode()).isEqualTo(404);
    }

    @Test
    void aDirectRequestForTheErrorPageIsNotAServerError() throws Exception {
        assertThat(anonymousGet("/error")).startsWith("404 ");
        assertThat(svc.get("/error").statusCode()).isEqualTo(404);
    }

    @ParameterizedTest
    @ValueSource(strings = {"/v1/json/at/%s/1/all/DEMO/Calo/Pedestals", "/v1/json/snapshot/%s/1",
            "/v1/json/state/%s", "/v1/json/pin/1767225600000000.42/at/HEAD/1/all/DEMO/%s"})
    void problemAnswersDoNotEchoLongInputInFull(String target) throws Exception {
        String tag = "T".repeat(5_000);
        var r = svc.get(target.formatted(tag));
        String body = new String(r.body(), StandardCharsets.UTF_8);
        assertThat(r.statusCode()).isBetween(400, 499);
        assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).contains("problem+json"));
        assertThat(body.length()).isLessThan(2_000);
        assertThat(body).doesNotContain("T".repeat(600));
    }

    /** The service's main in a JVM of its own, on a port something else holds: one line, exit status 2, no hang. */
    @Test
    void aTakenPortEndsTheStartWithOneLine() throws Exception {
        Path dir = TempDirs.create("outpost-taken-port");
        try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            int port = taken.getLocalPort();
            Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Djava.io.tmpdir=" + dir, "-cp", System.getProperty("java.class.path"),
                    OutpostApplication.class.getName(), "--server.port=" + port, "--server.address=127.0.0.1",
                    "--outpost.database.url=jdbc:sqlite:" + dir.resolve("demo.db"),
                    "--server.tomcat.basedir=" + dir.resolve("tomcat"))
                    .redirectErrorStream(true).start();
            try {
                String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("ended").isTrue();
                assertThat(p.exitValue()).isEqualTo(2);
                assertThat(output.lines().filter(l -> l.contains("in use"))).as(output)
                        .containsExactly("outpost: port " + port + " is already in use (server.port); stop what listens"
                                + " there or start with --server.port=<another port>");
                assertThat(output).as(output).doesNotContain("\tat ").doesNotContain("APPLICATION FAILED TO START");
            } finally {
                p.destroyForcibly();
            }
        } finally {
            TempDirs.deleteQuietly(dir);
        }
    }

    /** Status and body of a GET from an address that is not a management address. */
    private static String anonymousGet(String path) throws Exception {
        try (RawHttp r = RawHttp.sendFrom(ANONYMOUS, svc.port(), path, "HTTP/1.1", Map.of("Connection", "close"))) {
            return r.status + " " + new String(r.body(), StandardCharsets.UTF_8);
        }
    }
}
