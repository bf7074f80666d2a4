package io.outpost.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.outpost.client.testing.FakeOutpost;
import io.outpost.client.testing.FakeProxy;
import io.outpost.client.testing.FakeServer;
import io.outpost.client.testing.FakeServer.Reply;
import io.outpost.client.testing.RecordingListener;
import io.outpost.client.testing.TestHostNames;
import io.outpost.testkit.SquidProcess;
import io.outpost.testkit.TempDirs;
import java.io.IOException;
import java.io.OutputStream;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Proxy auto-config (docs/client-failover.md, "Proxy auto-config") with real parts: PAC files served over HTTP
 * and read from file://, a real Squid chosen by the PAC file, WPAD's {@code auto} with the name {@code wpad}
 * given a loopback address by the test JVM's own resolver ({@link TestHostNames}).
 */
class ProxyAutoConfigTest {
    private static final String BROWSE = "/v1/bin/browse/HEAD/0/999/all/cs/A/Time";
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final RecordingListener events = new RecordingListener();
    private final AtomicLong now = new AtomicLong();
    private Path dir;

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : closeables.reversed()) {
            c.close();
        }
        if (dir != null) {
            TempDirs.delete(dir);
        }
    }

    private FakeServer server(FakeServer.Handler h) throws IOException {
        FakeServer s = FakeServer.start(h);
        closeables.add(s);
        return s;
    }

    /** A PAC server answering every path with the current text of {@code pac}. */
    private FakeServer pacServer(AtomicReference<String> pac) throws IOException {
        return server(r -> Reply.of(200, pac.get().getBytes(StandardCharsets.UTF_8),
                "Content-Type", "application/x-ns-proxy-autoconfig"));
    }

    private static String pacAnswering(String answer) {
        return "function FindProxyForURL(url, host) { return \"" + answer + "\"; }\n";
    }

    private Path file(String name, String text) throws IOException {
        if (dir == null) {
            dir = TempDirs.create("outpost-pac");
        }
        return Files.writeString(dir.resolve(name), text);
    }

    private OutpostClient client(ClientConfig.Builder b) {
        return OutpostClient.builder(b.cacheMaxBytes(0).retries(0).backoff(Duration.ZERO, Duration.ZERO).build())
                .eventListener(events).ticker(now::get).build();
    }

    private static List<Iov> browse(OutpostClient c) throws OutpostException {
        return c.browse("/A/Time", "HEAD", 0, 999, ChannelSelection.all(), Order.CHANNEL_SINCE);
    }

    private static String hostPort(String url) {
        return url.substring("http://".length());
    }

    @Test
    void aPacFileServedOverHttpSendsTheQueriesThroughTheSquidItNames() throws Exception {
        Assumptions.assumeTrue(SquidProcess.installed(), SquidProcess.NOT_INSTALLED);
        FakeServer origin = server(new FakeOutpost());
        // The site configuration (squid-config/run-squid.sh) in target/, where Squid's own user may write.
        Path state = Path.of("target", "squid-pac").toAbsolutePath();
        SquidProcess squid = SquidProcess.findScript()
                .map(script -> SquidProcess.start(state, script, "pac-squid", "--outpost", origin.url()))
                .orElseGet(() -> SquidProcess.startStandalone(state, "pac-squid", 16));
        closeables.add(squid);
        String dead = FakeServer.deadUrl();
        FakeServer pac = pacServer(new AtomicReference<>(
                pacAnswering("PROXY " + hostPort(dead) + "; PROXY 127.0.0.1:" + squid.port() + "; DIRECT")));

        OutpostClient c = client(ClientConfig.builder().server(origin.url()).proxyConfig(pac.url() + "/wpad.dat"));
        assertThat(browse(c)).hasSize(100);
        assertThat(browse(c)).hasSize(100);

        String viaSquid = new Route(Endpoint.parse(origin.url()), Endpoint.parse("127.0.0.1:" + squid.port()))
                .toString();
        assertThat(events.trace()).containsExactly(
                "fail " + new Route(Endpoint.parse(origin.url()), Endpoint.parse(dead)) + " NONE UNAVAILABLE 0 NEXT_PROXY",
                "ok " + viaSquid + " NONE", "ok " + viaSquid + " NONE");
        assertThat(squid.awaitAccessLog(origin.url() + BROWSE, 2, Duration.ofSeconds(10))).hasSize(2).last().matches(SquidProcess.AccessLine::isHit, "a hit");
        assertThat(origin.requestCount()).isEqualTo(1);
        assertThat(pac.requestCount()).as("the PAC file is read once").isEqualTo(1);
    }

    @Test
    void aFilePacAnswerComesBeforeTheConfiguredProxiesAndDirectKeepsTheServers() throws Exception {
        FakeOutpost outpost = new FakeOutpost();
        FakeServer origin = server(outpost);
        FakeServer pacProxy = server(new FakeProxy());
        FakeServer configured = server(new FakeProxy());
        Path pac = file("site.pac", pacAnswering("PROXY " + hostPort(pacProxy.url()) + "; DIRECT"));

        OutpostClient c = client(ClientConfig.builder().server(origin.url()).proxy(configured.url())
                .failoverToServer(false).proxyConfig(pac.toUri().toString()));
        assertThat(browse(c)).hasSize(100);
        assertThat(pacProxy.requestCount()).isEqualTo(1);
        assertThat(configured.requestCount()).isZero();

        outpost.fail503.set(100); // now every route fails: the order shows PAC proxy, configured proxy, then direct
        events.clear();
        // the message counts the PAC file's proxy with the configured one
        assertThatThrownBy(() -> browse(c)).isInstanceOf(OutpostException.class)
                .hasMessageContaining("over 1 server(s) and 2 proxy(ies)");
        Endpoint server = Endpoint.parse(origin.url());
        assertThat(failedRoutes()).containsExactly(new Route(server, Endpoint.parse(pacProxy.url())),
                new Route(server, Endpoint.parse(configured.url())), Route.direct(server));
    }

    private List<Route> failedRoutes() {
        return events.events().stream().filter(e -> e instanceof ClientEvent.AttemptFailed)
                .map(e -> ((ClientEvent.AttemptFailed) e).route()).toList();
    }

    @Test
    void aPacAnswerOfDirectAloneAsksTheServersDirectly() throws Exception {
        FakeServer origin = server(new FakeOutpost());
        Path pac = file("direct.pac", pacAnswering("DIRECT"));
        OutpostClient c = client(ClientConfig.builder().server(origin.url()).proxyConfig(pac.toUri().toString()));
        assertThat(browse(c)).hasSize(100);
        assertThat(events.trace()).containsExactly("ok " + Route.direct(Endpoint.parse(origin.url())) + " NONE");
    }

    @Test
    void autoReadsWpadDatFromTheHostNamedWpad() throws Exception {
        // WPAD is http://wpad/wpad.dat: port 80 on whatever "wpad" resolves to, here a loopback address of the
        // test JVM's own resolver. Binding port 80 needs root (as ./outpost test runs).
        InetAddress wpad = InetAddress.getByAddress("wpad", new byte[] {127, 0, 80, 80});
        HttpServer http;
        try {
            http = HttpServer.create(new InetSocketAddress(wpad, 80), 8);
        } catch (BindException e) {
            Assumptions.abort("cannot listen on " + wpad.getHostAddress() + ":80 (not root, or taken): " + e.getMessage());
            return;
        }
        FakeServer origin = server(new FakeOutpost());
        FakeServer proxy = server(new FakeProxy());
        byte[] pac = pacAnswering("PROXY " + hostPort(proxy.url())).getBytes(StandardCharsets.UTF_8);
        AtomicLong served = new AtomicLong();
        http.createContext("/wpad.dat", ex -> {
            served.incrementAndGet();
            ex.sendResponseHeaders(200, pac.length);
            try (OutputStream out = ex.getResponseBody()) {
                out.write(pac);
            }
        });
        http.start();
        closeables.add(() -> http.stop(0));
        TestHostNames.MAP.put("wpad", wpad);
        closeables.add(() -> TestHostNames.MAP.remove("wpad"));

        OutpostClient c = client(ClientConfig.builder().server(origin.url()).frontierString("(proxyconfigurl=auto)"));
        assertThat(browse(c)).hasSize(100);
        assertThat(served.get()).isEqualTo(1);
        assertThat(events.trace()).containsExactly(
                "ok " + new Route(Endpoint.parse(origin.url()), Endpoint.parse(proxy.url())) + " NONE");
    }

    @Test
    void unreadablePacUrlsArePassedOverInOrderAndNoneReadableIsAnErrorNamingEach() throws Exception {
        FakeServer origin = server(new FakeOutpost());
        String dead = FakeServer.deadUrl() + "/proxy.pac";
        Path missing = Path.of(file("x", "").getParent().toString(), "missing.pac");
        Path good = file("direct.pac", pacAnswering("DIRECT"));
        OutpostClient c = client(ClientConfig.builder().server(origin.url()).proxyConfig(dead)
                .proxyConfig(missing.toUri().toString()).proxyConfig(good.toUri().toString()));
        assertThat(browse(c)).hasSize(100);

        assertThatThrownBy(() -> client(ClientConfig.builder().server(origin.url()).proxyConfig(dead)
                .proxyConfig(missing.toUri().toString())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(dead).hasMessageContaining(missing.toUri().toString());
    }

    @Test
    void aBadPacFileIsAConfigurationErrorNamingItsUrl() throws Exception {
        Path testdata = Path.of(System.getProperty("outpost.testdata", "../testdata")).resolve("pac");
        for (String name : List.of("broken.pac", "empty.pac", "socks.pac")) {
            String url = testdata.resolve(name).toUri().toString();
            assertThatThrownBy(() -> client(ClientConfig.builder().server("http://db.site.example:8000")
                    .proxyConfig(url))).as(name).isInstanceOf(IllegalArgumentException.class).hasMessageContaining(url);
        }
    }

    @Test
    void theAnswerIsCachedPerHostAndReadAgainAfterFiveMinutes() throws Exception {
        FakeServer origin = server(new FakeOutpost());
        FakeServer proxy = server(new FakeProxy());
        AtomicReference<String> text = new AtomicReference<>(pacAnswering("DIRECT"));
        FakeServer pac = pacServer(text);
        OutpostClient c = client(ClientConfig.builder().server(origin.url()).proxyConfig(pac.url() + "/p.pac"));
        Endpoint server = Endpoint.parse(origin.url());

        browse(c);
        text.set(pacAnswering("PROXY " + hostPort(proxy.url())));
        now.addAndGet(Duration.ofMinutes(5).toNanos() - 1);
        browse(c);
        assertThat(pac.requestCount()).isEqualTo(1);
        now.addAndGet(1);
        browse(c);
        assertThat(pac.requestCount()).isEqualTo(2);
        assertThat(events.trace()).containsExactly("ok " + Route.direct(server) + " NONE",
                "ok " + Route.direct(server) + " NONE", "ok " + new Route(server, Endpoint.parse(proxy.url())) + " NONE");

        text.set("function FindProxyForURL(url, host) {"); // a renewal that fails keeps the last answer
        now.addAndGet(Duration.ofMinutes(5).toNanos());
        browse(c);
        assertThat(proxy.requestCount()).isEqualTo(2);
    }

    @Test
    void loadbalanceProxiesIsTurnedOffWithAWarningAndUnknownKeysAreNamedOnce() {
        ClientConfig cfg = ClientConfig.parse("(serverurl=http://a:8000)(proxyconfigurl=auto)(loadbalance=proxies)"
                + "(nosuchkey=1)(nosuchkey=2)(retrieve-ziplevel=5)");
        assertThat(cfg.loadBalance()).isEqualTo(LoadBalance.NONE);
        assertThat(cfg.proxyConfigUrls()).containsExactly("auto");
        assertThat(cfg.warnings()).containsExactly("unknown configuration key 'nosuchkey' ignored",
                "unknown configuration key 'retrieve-ziplevel' ignored",
                "loadbalance=proxies is turned off: the proxy auto-config decides the order of the proxies");
        assertThat(ClientConfig.parse(cfg.toString()).proxyConfigUrls()).containsExactly("auto");
    }

    @Test
    void frontierProxyConfigsIsASemicolonList() {
        ClientConfig cfg = ClientConfig.fromEnvironment(Map.of("FRONTIER_SERVER", "http://a:8000",
                "FRONTIER_PROXYCONFIGS", "http://site/proxy.pac;auto;file:///etc/site.pac"));
        assertThat(cfg.proxyConfigUrls()).containsExactly("http://site/proxy.pac", "auto", "file:///etc/site.pac");
        assertThatThrownBy(() -> ClientConfig.parse("(serverurl=http://a:8000)(proxyconfigurl=ftp://x/p.pac)"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ftp://x/p.pac");
    }
}
