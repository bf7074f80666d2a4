package io.outpost.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.server.support.AccessLogCapture;
import io.outpost.server.support.RunningService;
import io.outpost.store.demo.DemoData;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Native answers served from memory by the valve in front of the filter chain: the same answer, logged, counted. */
class MemoryHitsTest {
    private static final long T = DemoData.T0 + 5 * DemoData.HOUR + 3;
    private static final List<String> HEADERS = List.of("Content-Type", "Content-Length", "ETag", "Last-Modified",
            "Cache-Control", "X-Outpost-Rows", "X-Outpost-Valid-Since", "X-Outpost-Valid-Until");
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
    void aMemoryHitRepeatsTheComputedAnswerAndIsLoggedAndCounted() throws Exception {
        String path = "/v1/bin/at/HEAD/" + T + "/all/DEMO/Calo/Pedestals";
        HttpResponse<byte[]> computed = svc.get(path);
        assertThat(computed.statusCode()).isEqualTo(200);
        double memoryHits = memoryRequests();
        HttpResponse<byte[]> hit;
        List<String> lines;
        try (AccessLogCapture log = new AccessLogCapture()) {
            hit = svc.get(path, "User-Agent", "memory-hit-test");
            lines = log.awaitLine("client=\"memory-hit-test\"");
        }
        assertThat(hit.statusCode()).isEqualTo(200);
        assertThat(hit.body()).isEqualTo(computed.body());
        for (String h : HEADERS) {
            assertThat(hit.headers().firstValue(h)).as(h).isPresent().isEqualTo(computed.headers().firstValue(h));
        }
        assertThat(hit.headers().firstValue("X-Outpost-Signature")).as("no signing key configured").isEmpty();
        assertThat(memoryRequests() - memoryHits).isEqualTo(1.0);
        assertThat(lines).anySatisfy(line -> assertThat(line).contains("GET " + path + "\" 200 ",
                "client=\"memory-hit-test\""));
    }

    @Test
    void memoryHitsAnswer304AndHeadWithoutABody() throws Exception {
        String path = "/v1/json/at/HEAD/" + (T + 1) + "/all/DEMO/Calo/Pedestals";
        HttpResponse<byte[]> computed = svc.get(path);
        String etag = computed.headers().firstValue("ETag").orElseThrow();
        double memoryHits = memoryRequests();
        HttpResponse<byte[]> notModified = svc.get(path, "If-None-Match", etag);
        assertThat(notModified.statusCode()).isEqualTo(304);
        assertThat(notModified.body()).isEmpty();
        assertThat(notModified.headers().firstValue("ETag")).hasValue(etag);
        assertThat(memoryRequests() - memoryHits).isEqualTo(1.0);
        HttpResponse<byte[]> head = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(svc.url(path)))
                .method("HEAD", HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofByteArray());
        assertThat(head.statusCode()).isEqualTo(200);
        assertThat(head.body()).isEmpty();
        assertThat(head.headers().firstValue("ETag")).hasValue(etag);
    }

    /** Requests the native API answered from memory so far (the timer's count). */
    private static double memoryRequests() throws Exception {
        for (String line : svc.getString("/actuator/prometheus").split("\n")) {
            if (line.startsWith("outpost_requests_seconds_count{") && line.contains("path=\"memory\"")) {
                return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return 0;
    }
}
