package io.outpost.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.outpost.store.IovStore;
import io.outpost.store.model.KeyType;
import io.outpost.store.model.PayloadSpec;
import io.outpost.store.model.Versioning;
import io.outpost.testkit.SquidProcess;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The real service behind a real Squid configured by squid-config/: hits, collapsed forwarding, short-lived errors,
 * revalidation with 304 and a 100 MB answer.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SquidSiteCacheTest {
    private static final Duration OPEN_ENDED_MAX_AGE = Duration.ofSeconds(2);
    private static final Duration ERROR_MAX_AGE = Duration.ofSeconds(1);

    private Path db;
    private OutpostServer outpost;
    private SquidProcess squid;
    private HttpClient client;

    @BeforeAll
    void start() {
        Assumptions.assumeTrue(SquidProcess.installed(), SquidProcess.NOT_INSTALLED);
        db = TestData.freshDatabase("site-cache");
        try (IovStore store = TestData.open(db)) {
            TestData.writeCond(store);
            TestData.writeBig(store);
        }
        outpost = OutpostServer.start(db, 0,
                "--outpost.caching.open-ended-max-age=" + OPEN_ENDED_MAX_AGE.toSeconds() + "s",
                "--outpost.caching.error-max-age=" + ERROR_MAX_AGE.toSeconds() + "s",
                "--outpost.cache.max-size=512MB");
        squid = Layout.startSquid("site", "--outpost", outpost.baseUrl());
        client = squid.client();
    }

    @AfterAll
    void stop() {
        if (squid != null) {
            squid.close();
        }
        if (outpost != null) {
            outpost.close();
        }
    }

    private HttpResponse<String> get(String path, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(outpost.baseUrl() + path)).timeout(Duration.ofSeconds(30));
        if (headers.length > 0) {
            b.headers(headers);
        }
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String xCache(HttpResponse<?> r) {
        return r.headers().firstValue("X-Cache").orElse("");
    }

    @Test
    void secondIdenticalRequestIsAHit() throws Exception {
        String path = TestData.at(100, TestData.COND);
        HttpResponse<String> first = get(path, "X-Outpost-Client", "it-hit/1.0");
        HttpResponse<String> second = get(path, "X-Outpost-Client", "it-hit/1.0");

        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.headers().firstValue("Cache-Control")).hasValue("public, max-age=300");
        assertThat(xCache(first)).startsWith("MISS");
        assertThat(second.statusCode()).isEqualTo(200);
        assertThat(xCache(second)).startsWith("HIT");
        assertThat(second.body()).isEqualTo(first.body()).contains("closed-3");
        assertThat(outpost.requests().count(path)).isEqualTo(1);
        // Outpost learns the path of the request: Squid's Via and the client's address.
        RequestLog.Entry seen = outpost.requests().forUri(path).getFirst();
        assertThat(seen.via()).contains("site (squid");
        assertThat(seen.forwardedFor()).isEqualTo("127.0.0.1");
        // Squid's access log: a miss then a hit, with the client id header logged.
        String url = outpost.baseUrl() + path;
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20))
                .until(() -> squid.accessLog(url).size() == 2);
        List<SquidProcess.AccessLine> lines = squid.accessLog(url);
        assertThat(lines.get(0).result()).isEqualTo("TCP_MISS");
        assertThat(lines.get(1).isHit()).as(lines.get(1).raw()).isTrue();
        assertThat(lines.get(1).raw()).contains("\"it-hit/1.0\"");
    }

    @Test
    void hundredConcurrentColdRequestsReachOutpostOnce() throws Exception {
        String path = TestData.at(200, TestData.COND);
        HttpRequest req = HttpRequest.newBuilder(URI.create(outpost.baseUrl() + path)).timeout(Duration.ofSeconds(30))
                .header("X-Outpost-Client", "it-collapse").build();
        // 100 clients with their own connections, released together.
        List<CompletableFuture<HttpResponse<String>>> all = new ArrayList<>();
        List<HttpClient> clients = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            clients.add(squid.client());
        }
        for (HttpClient c : clients) {
            all.add(c.sendAsync(req, HttpResponse.BodyHandlers.ofString()));
        }
        CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);

        String body = all.getFirst().join().body();
        assertThat(body).contains("closed-0");
        for (CompletableFuture<HttpResponse<String>> f : all) {
            assertThat(f.join().statusCode()).isEqualTo(200);
            assertThat(f.join().body()).isEqualTo(body);
        }
        assertThat(outpost.requests().count(path)).as("requests that reached Outpost").isEqualTo(1);
        String url = outpost.baseUrl() + path;
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20))
                .until(() -> squid.accessLog(url).size() == 100);
        System.out.printf("collapsed forwarding: 100 requests -> %d at Outpost; Squid results %s%n",
                outpost.requests().count(path), squid.accessLog(url).stream()
                        .collect(java.util.stream.Collectors.groupingBy(SquidProcess.AccessLine::result,
                                java.util.TreeMap::new, java.util.stream.Collectors.counting())));
    }

    @Test
    void errorsAreNotKeptBeyondTheirShortAge() throws Exception {
        String folder = "/IT/Late";
        String path = "/v1/json/channels" + folder;
        HttpResponse<String> missing = get(path);
        long firstNanos = System.nanoTime();
        assertThat(missing.statusCode()).isEqualTo(404);
        assertThat(missing.headers().firstValue("Cache-Control")).hasValue("public, max-age=" + ERROR_MAX_AGE.toSeconds());
        assertThat(missing.headers().firstValue("Last-Modified")).hasValue("Thu, 01 Jan 1970 00:00:00 GMT");

        // The folder appears: once the 404's short age is over, Squid must ask Outpost again and pass on the answer.
        try (IovStore store = TestData.open(db)) {
            store.createFolder(folder, Versioning.SINGLE_VERSION, KeyType.TIME, PayloadSpec.parse("x:Int32"), "late", true);
        }
        List<Integer> seen = new ArrayList<>();
        await().atMost(ERROR_MAX_AGE.plusSeconds(4)).pollInterval(Duration.ofMillis(100)).until(() -> {
            int status = get(path).statusCode();
            seen.add(status);
            return status == 200;
        });
        Duration kept = Duration.ofNanos(System.nanoTime() - firstNanos);
        assertThat(seen).allMatch(s -> s == 404 || s == 200);
        // Squid's ages are in whole seconds: an error with max-age=N may be served for up to N + 1 s.
        assertThat(kept).isLessThan(ERROR_MAX_AGE.plusSeconds(2));
        assertThat(outpost.requests().count(path, 404)).isGreaterThanOrEqualTo(1);
        assertThat(outpost.requests().count(path, 200)).isEqualTo(1);
        System.out.printf("404 kept by Squid for %d ms (max-age %d s), %d polls%n", kept.toMillis(),
                ERROR_MAX_AGE.toSeconds(), seen.size());
    }

    @Test
    void afterMaxAgeSquidRevalidatesAndGets304() throws Exception {
        String path = TestData.at(1500, TestData.COND);
        HttpResponse<String> first = get(path);
        long firstNanos = System.nanoTime();
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.headers().firstValue("Cache-Control")).hasValue("public, max-age=" + OPEN_ENDED_MAX_AGE.toSeconds());
        assertThat(first.body()).contains("current-2");

        // Clients keep asking; once the copy is older than max-age Squid revalidates it with Outpost.
        await().atMost(OPEN_ENDED_MAX_AGE.plusSeconds(5)).pollInterval(Duration.ofMillis(100)).until(() -> {
            HttpResponse<String> r = get(path);
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).isEqualTo(first.body());
            return outpost.requests().count(path, 304) > 0;
        });
        RequestLog.Entry revalidation = outpost.requests().forUri(path).stream().filter(e -> e.status() == 304)
                .findFirst().orElseThrow();
        Duration after = Duration.ofNanos(revalidation.nanos() - firstNanos);
        assertThat(revalidation.ifModifiedSince()).isEqualTo(first.headers().firstValue("Last-Modified").orElseThrow());
        assertThat(after).isGreaterThan(OPEN_ENDED_MAX_AGE.minusSeconds(1)).isLessThan(OPEN_ENDED_MAX_AGE.plusSeconds(3));
        assertThat(outpost.requests().count(path, 200)).as("the body is sent once").isEqualTo(1);
        String url = outpost.baseUrl() + path;
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20))
                .until(() -> squid.accessLog(url).stream().anyMatch(l -> l.result().equals("TCP_REFRESH_UNMODIFIED")));
        System.out.printf("revalidated with a 304 %d ms after the first fetch (max-age %d s)%n", after.toMillis(),
                OPEN_ENDED_MAX_AGE.toSeconds());
    }

    @Test
    void hundredMegabyteAnswerIsCachedAndServedWhole() throws Exception {
        String path = "/v1/json/browse/HEAD/0/9223372036854775807/all/cs" + TestData.BIG;
        Fetched first = fetchDigest(path);
        Fetched second = fetchDigest(path);

        assertThat(first.status()).isEqualTo(200);
        assertThat(first.length()).isGreaterThan(100_000_000L).isEqualTo(first.contentLength());
        assertThat(first.xCache()).startsWith("MISS");
        assertThat(second.status()).isEqualTo(200);
        assertThat(second.xCache()).startsWith("HIT");
        assertThat(second.length()).isEqualTo(first.length()).isEqualTo(second.contentLength());
        assertThat(second.sha256()).isEqualTo(first.sha256());
        assertThat(outpost.requests().count(path)).isEqualTo(1);
        System.out.printf("%d-byte answer: first fetch %d ms (miss), second %d ms (%s)%n", first.length(),
                first.millis(), second.millis(), second.xCache());
    }

    private record Fetched(int status, long length, long contentLength, String sha256, String xCache, long millis) {
    }

    private Fetched fetchDigest(String path) throws Exception {
        long t0 = System.nanoTime();
        HttpResponse<InputStream> r = client.send(HttpRequest.newBuilder(URI.create(outpost.baseUrl() + path))
                .timeout(Duration.ofSeconds(120)).build(), HttpResponse.BodyHandlers.ofInputStream());
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        long n = 0;
        try (InputStream in = r.body()) {
            byte[] buf = new byte[1 << 16];
            for (int k; (k = in.read(buf)) > 0; ) {
                md.update(buf, 0, k);
                n += k;
            }
        }
        return new Fetched(r.statusCode(), n, r.headers().firstValueAsLong("Content-Length").orElse(-1), 
                HexFormat.of().formatHex(md.digest()), xCache(r), (System.nanoTime() - t0) / 1_000_000);
    }
}
