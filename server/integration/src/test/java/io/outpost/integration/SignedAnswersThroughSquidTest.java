package io.outpost.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.outpost.client.ChannelSelection;
import io.outpost.client.ClientConfig;
import io.outpost.client.ClientEvent;
import io.outpost.client.Iov;
import io.outpost.client.Keys;
import io.outpost.client.Order;
import io.outpost.client.OutpostClient;
import io.outpost.client.OutpostException;
import io.outpost.testkit.SigningKeys;
import io.outpost.testkit.SquidProcess;
import io.outpost.testkit.TempDirs;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.InetSocketAddress;
import java.net.Proxy;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiFunction;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Signed answers end to end (docs/api.md "Signed answers"): the service signs with its key, a real Squid keeps the
 * signature with the answer, and the Java client with security=sig accepts only answers that verify, failing over
 * from a proxy that alters a byte or drops the header to the next route.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SignedAnswersThroughSquidTest {
    private Path keysDir;
    private SigningKeys keys;
    private SigningKeys otherKeys;
    private SiteCache site;

    @BeforeAll
    void start() {
        Assumptions.assumeTrue(SquidProcess.installed(), SquidProcess.NOT_INSTALLED);
        keysDir = TempDirs.create("signed-answers-keys");
        keys = SigningKeys.create(keysDir, "site");
        otherKeys = SigningKeys.create(keysDir, "other");
        site = SiteCache.start("signed", TestData::writeCond, "--outpost.signing.key-file=" + keys.privateKey(),
                "--outpost.signing.key-id=site-1");
    }

    @AfterAll
    void stop() {
        if (site != null) {
            site.close();
        }
        if (keysDir != null) {
            TempDirs.deleteQuietly(keysDir);
        }
    }

    private OutpostClient job(String proxy, SigningKeys verifyWith, List<ClientEvent> events) {
        return job(site, proxy, verifyWith, events);
    }

    private static OutpostClient job(SiteCache site, String proxy, SigningKeys verifyWith, List<ClientEvent> events) {
        ClientConfig config = ClientConfig.builder().server(site.outpost.baseUrl()).proxy(proxy).security("sig")
                .verifyKey("site-1:" + verifyWith.publicKey()).retries(0).cacheMaxBytes(0).build();
        return OutpostClient.builder(config).eventListener(events::add).build();
    }

    private List<Iov> browse(OutpostClient c) throws OutpostException {
        return c.browse(TestData.COND, OutpostClient.HEAD, 0, Keys.MAX, ChannelSelection.all(), Order.CHANNEL_SINCE);
    }

    private static String succeededPath(List<ClientEvent> events) {
        return events.stream().filter(e -> e instanceof ClientEvent.AttemptSucceeded)
                .map(e -> ((ClientEvent.AttemptSucceeded) e).path()).reduce((a, b) -> b).orElseThrow();
    }

    @Test
    void answersVerifyThroughSquidAndASquidHitStillVerifies() throws Exception {
        String squid = "http://127.0.0.1:" + site.squid.port();
        List<ClientEvent> first = new CopyOnWriteArrayList<>();
        List<Iov> rows;
        try (OutpostClient c = job(squid, keys, first)) {
            rows = browse(c);
            assertThat(rows).hasSize(8);
            assertThat(c.nodes()).isNotEmpty();
        }
        String path = succeededPath(first);
        List<ClientEvent> second = new CopyOnWriteArrayList<>();
        try (OutpostClient c = job(squid, keys, second)) {
            assertThat(browse(c)).isEqualTo(rows);
        }
        assertThat(second).noneMatch(e -> e instanceof ClientEvent.AttemptFailed);
        assertThat(site.outpost.requests().count(path)).as("the second job was answered by Squid").isEqualTo(1);
        HttpResponse<byte[]> viaSquid = site.squid.client().send(HttpRequest.newBuilder(
                URI.create(site.outpost.baseUrl() + path)).build(), HttpResponse.BodyHandlers.ofByteArray());
        assertThat(viaSquid.headers().firstValue("X-Cache").orElse("")).startsWith("HIT");
        assertThat(viaSquid.headers().firstValue("X-Outpost-Signature").orElse(""))
                .as("Squid keeps the signature with the answer").startsWith("outpost-sig-2 ed25519 site-1 ");
    }

    /**
     * With answers fresh for 2 s and a grace of 1 s, a signature expires 3 s after it was made; Squid revalidates
     * the stale answer, the service answers 304 with a fresh signature, and Squid serves the answer it kept with
     * the new signature, which the next job accepts.
     */
    @Test
    void anAnswerRevalidatedBySquidStillVerifiesAfterItsFirstSignatureExpired() throws Exception {
        try (SiteCache shortLived = SiteCache.start("signed-short", TestData::writeCond,
                "--outpost.signing.key-file=" + keys.privateKey(), "--outpost.signing.key-id=site-1",
                "--outpost.signing.grace=1s", "--outpost.caching.open-ended-max-age=2s",
                "--outpost.caching.default-max-age=2s", "--outpost.caching.metadata-max-age=2s")) {
            String squid = "http://127.0.0.1:" + shortLived.squid.port();
            List<ClientEvent> first = new CopyOnWriteArrayList<>();
            List<Iov> rows;
            try (OutpostClient c = job(shortLived, squid, keys, first)) {
                rows = browse(c);
            }
            String path = succeededPath(first);
            HttpResponse<byte[]> before = viaSquid(shortLived, path);
            long firstExpiry = expiry(before);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (System.currentTimeMillis() / 1000 <= firstExpiry) { // polls the clock: the condition is time itself
                assertThat(System.nanoTime() - deadline).as("the first signature expires within 30 s").isNegative();
                Thread.sleep(100);
            }
            List<ClientEvent> second = new CopyOnWriteArrayList<>();
            try (OutpostClient c = job(shortLived, squid, keys, second)) {
                assertThat(browse(c)).isEqualTo(rows);
            }
            assertThat(second).noneMatch(e -> e instanceof ClientEvent.AttemptFailed);
            assertThat(shortLived.squid.awaitAccessLog(shortLived.outpost.baseUrl() + path, 3, Duration.ofSeconds(10)))
                    .as("Squid revalidated its copy").anyMatch(l -> l.result().contains("REFRESH_UNMODIFIED"));
            HttpResponse<byte[]> after = viaSquid(shortLived, path);
            assertThat(after.body()).isEqualTo(before.body());
            assertThat(expiry(after)).as("the 304's fresh signature replaced the stored one").isGreaterThan(firstExpiry);
        }
    }

    private static HttpResponse<byte[]> viaSquid(SiteCache site, String path) throws Exception {
        return site.squid.client().send(HttpRequest.newBuilder(URI.create(site.outpost.baseUrl() + path)).build(),
                HttpResponse.BodyHandlers.ofByteArray());
    }

    /** The EXPIRES of an answer's outpost-sig-2 signature. */
    private static long expiry(HttpResponse<byte[]> r) {
        String[] parts = r.headers().firstValue("X-Outpost-Signature").orElseThrow().split(" ");
        assertThat(parts).hasSize(5);
        return Long.parseLong(parts[3]);
    }

    @Test
    void aProxyThatFlipsOneByteIsFailedOverToTheDirectRoute() throws Exception {
        try (TamperingProxy proxy = new TamperingProxy((name, value) -> value)) {
            proxy.flipByte = true;
            assertFailsOverFrom(proxy, "does not verify");
        }
    }

    @Test
    void aProxyThatDropsTheSignatureIsFailedOverToTheDirectRoute() throws Exception {
        try (TamperingProxy proxy = new TamperingProxy((name, value) ->
                name.equalsIgnoreCase("X-Outpost-Signature") ? null : value)) {
            assertFailsOverFrom(proxy, "no signature");
        }
    }

    private void assertFailsOverFrom(TamperingProxy proxy, String reason) throws Exception {
        List<ClientEvent> events = new CopyOnWriteArrayList<>();
        try (OutpostClient c = job(proxy.url(), keys, events)) {
            assertThat(browse(c)).hasSize(8);
        }
        assertThat(proxy.forwarded).as("the proxy was asked first").isNotEmpty();
        assertThat(events).filteredOn(e -> e instanceof ClientEvent.AttemptFailed)
                .map(e -> (ClientEvent.AttemptFailed) e)
                .anySatisfy(f -> {
                    assertThat(f.kind()).isEqualTo(OutpostException.Kind.UNSIGNED);
                    assertThat(f.detail()).contains(reason);
                    assertThat(f.route().isDirect()).isFalse();
                });
        ClientEvent last = events.get(events.size() - 1);
        assertThat(last).isInstanceOf(ClientEvent.AttemptSucceeded.class);
        assertThat(((ClientEvent.AttemptSucceeded) last).route().isDirect()).isTrue();
    }

    @Test
    void theWrongKeyFailsEveryRouteWithAClearError() {
        List<ClientEvent> events = new CopyOnWriteArrayList<>();
        try (OutpostClient c = job("http://127.0.0.1:" + site.squid.port(), otherKeys, events)) {
            assertThatThrownBy(() -> browse(c)).isInstanceOf(OutpostException.class)
                    .hasMessageContaining("UNAVAILABLE").hasMessageContaining("signature by key 'site-1' does not verify");
        }
        assertThat(events).noneMatch(e -> e instanceof ClientEvent.AttemptSucceeded);
    }

    /**
     * A forwarding HTTP proxy that alters what it forwards: each response header passes through {@code headers}
     * (null drops it), and with {@code flipByte} the middle byte of every 200 body is inverted.
     */
    private static final class TamperingProxy implements AutoCloseable {
        private final HttpServer server;
        private final BiFunction<String, String, String> headers;
        final List<String> forwarded = new CopyOnWriteArrayList<>();
        volatile boolean flipByte;

        TamperingProxy(BiFunction<String, String, String> headers) throws IOException {
            this.headers = headers;
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            server.createContext("/", this::forward);
            server.start();
        }

        String url() {
            return "http://127.0.0.1:" + server.getAddress().getPort();
        }

        private void forward(HttpExchange ex) throws IOException {
            forwarded.add(ex.getRequestURI().toString());
            HttpURLConnection c = (HttpURLConnection) ex.getRequestURI().toURL().openConnection(Proxy.NO_PROXY);
            int status = c.getResponseCode();
            byte[] body;
            try (InputStream in = status >= 400 ? c.getErrorStream() : c.getInputStream()) {
                body = in == null ? new byte[0] : in.readAllBytes();
            }
            if (flipByte && status == 200 && body.length > 0) {
                body[body.length / 2] ^= (byte) 0xFF;
            }
            c.getHeaderFields().forEach((name, values) -> {
                if (name != null && !name.equalsIgnoreCase("Content-Length")
                        && !name.equalsIgnoreCase("Transfer-Encoding") && !name.equalsIgnoreCase("Connection")) {
                    String v = headers.apply(name, values.get(0));
                    if (v != null) {
                        ex.getResponseHeaders().set(name, v);
                    }
                }
            });
            ex.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
            try (OutputStream out = ex.getResponseBody()) {
                out.write(body);
            }
        }

        @Override
        public void close() {
            server.stop(0);
        }
    }
}
