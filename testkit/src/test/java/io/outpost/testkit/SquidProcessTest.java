package io.outpost.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A real Squid in front of a tiny real HTTP server: answers go through it, and a repeated one comes from its cache. */
class SquidProcessTest {
    private static final Path STATE = Path.of("target", "squid-test").toAbsolutePath();
    private HttpServer origin;
    private final AtomicInteger originRequests = new AtomicInteger();

    @BeforeEach
    void startOrigin() throws Exception {
        Assumptions.assumeTrue(SquidProcess.installed(), SquidProcess.NOT_INSTALLED);
        origin = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        origin.createContext("/", exchange -> {
            originRequests.incrementAndGet();
            byte[] body = ("answer for " + exchange.getRequestURI().getPath()).getBytes(StandardCharsets.US_ASCII);
            exchange.getResponseHeaders().add("Cache-Control", "max-age=300");
            exchange.getResponseHeaders().add("Last-Modified", "Mon, 02 Nov 2026 10:00:00 GMT");
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        origin.start();
    }

    @AfterEach
    void stopOrigin() {
        if (origin != null) {
            origin.stop(0);
        }
    }

    private String originUrl() {
        return "http://127.0.0.1:" + origin.getAddress().getPort();
    }

    @Test
    void siteConfigurationAnswersThroughAndCaches() throws Exception {
        Path script = SquidProcess.findScript().orElseThrow(() -> new AssertionError("squid-config/run-squid.sh not found"));
        SquidProcess squid = SquidProcess.start(STATE.resolve("site"), script, "kit-site", "--outpost", originUrl());
        try (squid) {
            assertAnsweredThenCached(squid, "/site");
            assertWorkersUnprivileged(squid);
        }
        assertLoggedMissThenHit(squid, "/site");
    }

    @Test
    void standaloneConfigurationAnswersThroughAndCaches() throws Exception {
        SquidProcess squid = SquidProcess.startStandalone(STATE.resolve("standalone"), "kit-standalone", 16);
        try (squid) {
            assertAnsweredThenCached(squid, "/standalone");
            assertWorkersUnprivileged(squid);
        }
        assertLoggedMissThenHit(squid, "/standalone");
    }

    private void assertAnsweredThenCached(SquidProcess squid, String path) throws Exception {
        for (int i = 0; i < 2; i++) {
            HttpResponse<String> r = squid.client().send(HttpRequest.newBuilder(URI.create(originUrl() + path)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).isEqualTo("answer for " + path);
        }
        assertThat(originRequests).as("the second request is answered by Squid").hasValue(1);
    }

    /** Started by root, Squid's master keeps root to manage its kids; the kids that serve requests run as proxy. */
    private static void assertWorkersUnprivileged(SquidProcess squid) throws Exception {
        if (!"root".equals(System.getProperty("user.name"))) {
            return; // not root: every process of it runs as this user anyway
        }
        long master = Long.parseLong(Files.readString(squid.dir().resolve("squid.pid")).trim());
        List<ProcessHandle> kids = ProcessHandle.of(master).orElseThrow().children().toList();
        assertThat(kids).as("Squid's kid processes").isNotEmpty()
                .allSatisfy(k -> assertThat(k.info().user()).hasValue("proxy"));
    }

    /** Squid writes its access log buffered; once it has exited (close waits for that) every line is there. */
    private void assertLoggedMissThenHit(SquidProcess squid, String path) {
        List<SquidProcess.AccessLine> lines = squid.accessLog(originUrl() + path);
        assertThat(lines).hasSize(2);
        assertThat(lines.get(0).isHit()).as(lines.get(0).raw()).isFalse();
        assertThat(lines.get(1).isHit()).as(lines.get(1).raw()).isTrue();
    }
}
