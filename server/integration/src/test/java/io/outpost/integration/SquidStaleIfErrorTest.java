package io.outpost.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

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
 * With Outpost stopped, Squid answers from its stale copy only for clients that accept stale data
 * (Cache-Control: max-stale, as Frontier clients send), and with an error otherwise.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SquidStaleIfErrorTest {
    private SiteCache site;
    private OutpostServer outpost;
    private SquidProcess squid;
    private HttpClient client;
    private String base;

    @BeforeAll
    void start() {
        Assumptions.assumeTrue(SquidProcess.installed(), SquidProcess.NOT_INSTALLED);
        site = SiteCache.start("stale", TestData::writeCond, "--outpost.caching.open-ended-max-age=1s");
        outpost = site.outpost;
        squid = site.squid;
        base = outpost.baseUrl();
        client = squid.client();
    }

    @AfterAll
    void stop() {
        if (site != null) {
            site.close();
        }
    }

    private HttpResponse<String> get(String path, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30));
        if (headers.length > 0) {
            b.headers(headers);
        }
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void staleAnswerOnlyForClientsThatAllowIt() throws Exception {
        String allowed = TestData.at(1500, TestData.COND);
        String plain = TestData.at(1501, TestData.COND);
        String neverCached = TestData.at(1502, TestData.COND);
        HttpResponse<String> a = get(allowed, "Cache-Control", "max-stale=1");
        HttpResponse<String> p = get(plain);
        assertThat(a.statusCode()).isEqualTo(200);
        assertThat(a.headers().firstValue("Cache-Control")).hasValue("public, max-age=1, stale-if-error=86400");
        assertThat(p.headers().firstValue("Cache-Control")).hasValue("public, max-age=1");

        outpost.close();

        // While a copy is fresh Squid serves it; once stale, a client that does not accept stale data gets an
        // error (Squid cannot revalidate), never the stale copy. Squid counts staleness in whole seconds
        // (max_stale 0 means "more than 0 s stale"), so the switch comes up to a second after max-age.
        for (String path : new String[] {allowed, plain}) {
            String expected = path.equals(allowed) ? a.body() : p.body();
            await().atMost(Duration.ofSeconds(8)).pollInterval(Duration.ofMillis(100)).until(() -> {
                HttpResponse<String> r = get(path);
                if (r.statusCode() == 200) {
                    assertThat(r.body()).isEqualTo(expected);
                    return false;
                }
                return true;
            });
        }
        for (String path : new String[] {allowed, plain}) {
            HttpResponse<String> strict = get(path);
            assertThat(strict.statusCode()).as(path).isBetween(500, 504);
            HttpResponse<String> tolerant = get(path, "Cache-Control", "max-stale=86400");
            assertThat(tolerant.statusCode()).as(path).isEqualTo(200);
            assertThat(tolerant.body()).isEqualTo(path.equals(allowed) ? a.body() : p.body());
            assertThat(tolerant.headers().firstValue("Warning")).hasValueSatisfying(w -> assertThat(w).startsWith("110"));
            // A failed revalidation leaves the copy in the cache: the next strict client still gets an error.
            assertThat(get(path).statusCode()).isBetween(500, 504);
        }
        // Nothing to fall back on: an error even for a tolerant client, and Squid does not keep it.
        assertThat(get(neverCached, "Cache-Control", "max-stale=86400").statusCode()).isBetween(500, 504);
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20))
                .until(() -> squid.accessLog().stream().anyMatch(l -> l.result().equals("TCP_REFRESH_FAIL_ERR")));
        assertThat(squid.accessLog(base + allowed)).anyMatch(l -> l.isHit() && l.status() == 200
                && l.raw().contains(" 127.0.0.1 "));
    }
}
