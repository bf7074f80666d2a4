package io.outpost.integration;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.testkit.SquidProcess;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The Frontier endpoint through a real Squid, as a Frontier client uses it: the path form is cached and served
 * as a hit; a rejected statement (a payload error) is not kept.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FrontierThroughSquidTest {
    private SiteCache site;
    private OutpostServer outpost;
    private SquidProcess squid;
    private HttpClient client;

    @BeforeAll
    void start() {
        Assumptions.assumeTrue(SquidProcess.installed(), SquidProcess.NOT_INSTALLED);
        site = SiteCache.start("frontier-squid", TestData::writeCond);
        outpost = site.outpost;
        squid = site.squid;
        client = squid.client();
    }

    @AfterAll
    void stop() {
        if (site != null) {
            site.close();
        }
    }

    /** The Frontier client's encoding of p1 (zlib, URL-safe base64 variant), as the servlet's own codec writes it. */
    private static String p1(String sql) {
        return io.outpost.frontier.protocol.P1Codec.encode(sql);
    }

    private HttpResponse<String> get(String path) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create(outpost.baseUrl() + path)).timeout(Duration.ofSeconds(30))
                .header("X-Frontier-Id", "outpost-integration 1.0").build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void frontierAnswersAreCachedAndServedAsHits() throws Exception {
        String path = "/Outpost/Frontier/type=frontier_request:1:DEFAULT&encoding=BLOBzip5&p1="
                + p1("SELECT NODE_FULLPATH FROM OUTPOST_NODES ORDER BY NODE_FULLPATH");
        HttpResponse<String> first = get(path);
        HttpResponse<String> second = get(path);
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.body()).contains("<quality error=\"0\"");
        assertThat(second.body()).isEqualTo(first.body());
        assertThat(second.headers().firstValue("X-Cache").orElse("")).startsWith("HIT");
        assertThat(outpost.requests().count(path)).as("requests reaching Outpost").isEqualTo(1);
    }

    @Test
    void rejectedStatementsAreNotKept() throws Exception {
        String path = "/Outpost/Frontier/type=frontier_request:1:DEFAULT&encoding=BLOB&p1="
                + p1("DELETE FROM OUTPOST_NODES");
        HttpResponse<String> first = get(path);
        assertThat(first.body()).contains("error=\"1\"").contains("SQL rejected");
        assertThat(first.headers().firstValue("Last-Modified")).hasValue("Thu, 01 Jan 1970 00:00:00 GMT");
        String cc = first.headers().firstValue("Cache-Control").orElse("");
        long maxAge = Long.parseLong(cc.replaceAll(".*max-age=(\\d+).*", "$1"));
        assertThat(maxAge).as("error max-age: " + cc).isLessThanOrEqualTo(5);
        HttpResponse<String> again = get(path);
        assertThat(again.body()).contains("SQL rejected");
    }
}
