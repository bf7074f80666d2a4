package io.outpost.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outpost.client.testing.FakeOutpost;
import io.outpost.client.testing.FakeProxy;
import io.outpost.client.testing.FakeServer;
import io.outpost.client.testing.FakeServer.Reply;
import io.outpost.client.testing.RecordingListener;
import io.outpost.client.testing.WireEncoder;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Failover, refresh and retry rules of docs/client-failover.md, against in-process servers and proxies. */
class FailoverTest {
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final RecordingListener events = new RecordingListener();
    private final List<Duration> sleeps = new CopyOnWriteArrayList<>();
    private static final String BROWSE = "/v1/bin/browse/HEAD/0/999/all/cs/A/Time";

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : closeables) {
            c.close();
        }
    }

    private FakeServer server(FakeServer.Handler h) throws IOException {
        FakeServer s = FakeServer.start(h);
        closeables.add(s);
        return s;
    }

    private OutpostClient client(ClientConfig.Builder b) {
        OutpostClient c = OutpostClient.builder(b.cacheMaxBytes(0).backoff(Duration.ZERO, Duration.ZERO).build())
                .eventListener(events).sleeper(sleeps::add).build();
        closeables.add(c);
        return c;
    }

    private static String route(String server, String proxy) {
        return new Route(Endpoint.parse(server), proxy == null ? null : Endpoint.parse(proxy)).toString();
    }

    private static List<Iov> browse(OutpostClient c) throws OutpostException {
        return c.browse("/A/Time", "HEAD", 0, 999, ChannelSelection.all(), Order.CHANNEL_SINCE);
    }

    @Test
    void aDeadServerFailsOverToTheNextServer() throws Exception {
        String dead = FakeServer.deadUrl();
        FakeServer good = server(new FakeOutpost());
        OutpostClient c = client(ClientConfig.builder().server(dead).server(good.url()).retries(0));

        assertThat(browse(c)).hasSize(100);
        assertThat(events.trace()).containsExactly(
                "fail " + route(dead, null) + " NONE UNAVAILABLE 0 NEXT_SERVER",
                "ok " + route(good.url(), null) + " NONE");

        events.clear();
        browse(c);
        assertThat(events.trace()).as("the failed server is postponed behind the good one")
                .containsExactly("ok " + route(good.url(), null) + " NONE");
    }

    @Test
    void a5xxServerFailsOverToTheNextServerThroughTheSameProxy() throws Exception {
        FakeOutpost busy = new FakeOutpost();
        busy.fail503.set(1000);
        FakeServer a = server(busy);
        FakeServer b = server(new FakeOutpost());
        FakeServer proxy = server(new FakeProxy());
        OutpostClient c = client(ClientConfig.builder().server(a.url()).server(b.url()).proxy(proxy.url()).retries(0));

        assertThat(browse(c)).hasSize(100);
        assertThat(events.trace()).containsExactly(
                "fail " + route(a.url(), proxy.url()) + " NONE UNAVAILABLE 503 NEXT_SERVER",
                "ok " + route(b.url(), proxy.url()) + " NONE");
        assertThat(proxy.requests()).extracting(FakeServer.Request::target)
                .as("a proxy receives absolute-form request URIs")
                .containsExactly(a.url() + BROWSE, b.url() + BROWSE);
        assertThat(b.requests()).hasSize(1);
    }

    @Test
    void aDeadProxyFailsOverToTheNextProxyThenDirect() throws Exception {
        String deadProxy = FakeServer.deadUrl();
        String deadProxy2 = FakeServer.deadUrl();
        FakeServer a = server(new FakeOutpost());
        OutpostClient c = client(ClientConfig.builder().server(a.url()).server(FakeServer.deadUrl())
                .proxy(deadProxy).proxy(deadProxy2).retries(0));

        assertThat(browse(c)).hasSize(100);
        assertThat(events.trace()).as("a dead proxy skips every server behind it").containsExactly(
                "fail " + route(a.url(), deadProxy) + " NONE UNAVAILABLE 0 NEXT_PROXY",
                "fail " + route(a.url(), deadProxy2) + " NONE UNAVAILABLE 0 NEXT_PROXY",
                "ok " + route(a.url(), null) + " NONE");
    }

    @Test
    void withFailoverToServerOffNoDirectConnectionIsMade() throws Exception {
        String deadProxy = FakeServer.deadUrl();
        FakeServer a = server(new FakeOutpost());
        OutpostClient c = client(ClientConfig.builder().server(a.url()).proxy(deadProxy).failoverToServer(false)
                .retries(0));

        assertThatThrownBy(() -> browse(c)).isInstanceOf(OutpostException.class)
                .satisfies(e -> assertThat(((OutpostException) e).kind()).isEqualTo(OutpostException.Kind.UNAVAILABLE))
                .satisfies(e -> assertThat(e.getSuppressed()).hasSize(1));
        assertThat(a.requestCount()).isZero();
    }

    @Test
    void a4xxIsNeverRetried() throws Exception {
        FakeServer a = server(new FakeOutpost());
        FakeServer b = server(new FakeOutpost());
        OutpostClient c = client(ClientConfig.builder().server(a.url()).server(b.url()).retries(3));

        assertThatThrownBy(() -> c.channels("/A/Nope")).isInstanceOf(OutpostException.class)
                .satisfies(e -> assertThat(((OutpostException) e).kind()).isEqualTo(OutpostException.Kind.NOT_FOUND))
                .satisfies(e -> assertThat(((OutpostException) e).httpStatus()).isEqualTo(404))
                .hasMessageContaining("no folder /A/Nope");
        assertThat(a.requestCount() + b.requestCount()).isEqualTo(1);
        assertThat(sleeps).isEmpty();
    }

    @Test
    void aTruncatedAnswerInAProxyCacheIsFixedByASoftRefresh() throws Exception {
        FakeServer a = server(new FakeOutpost());
        FakeProxy proxyLogic = new FakeProxy();
        byte[] whole = WireEncoder.iovs("/A/Time", "HEAD", FakeOutpost.PAYLOAD)
                .encode(FakeOutpost.browseRows("all", 0, 999));
        proxyLogic.poison(BROWSE, Reply.of(200, whole).truncatedTo(whole.length / 2), true);
        FakeServer proxy = server(proxyLogic);
        OutpostClient c = client(ClientConfig.builder().server(a.url()).proxy(proxy.url()).retries(0));

        assertThat(browse(c)).hasSize(100);
        String r = route(a.url(), proxy.url());
        assertThat(events.trace()).containsExactly("fail " + r + " NONE CORRUPT 200 REFRESH_SOFT", "ok " + r + " SOFT");
        assertThat(proxy.requests()).extracting(q -> q.header("Cache-Control")).containsExactly(null, "max-age=0");
    }

    @Test
    void aCorruptAnswerThatSurvivesRevalidationIsFixedByAHardRefresh() throws Exception {
        FakeServer a = server(new FakeOutpost());
        FakeProxy proxyLogic = new FakeProxy();
        byte[] badCrc = WireEncoder.iovs("/A/Time", "HEAD", FakeOutpost.PAYLOAD).lieAboutCrc(42)
                .encode(FakeOutpost.browseRows("all", 0, 999));
        proxyLogic.poison(BROWSE, Reply.of(200, badCrc), false);
        FakeServer proxy = server(proxyLogic);
        OutpostClient c = client(ClientConfig.builder().server(a.url()).proxy(proxy.url()).retries(0));

        assertThat(browse(c)).hasSize(100);
        String r = route(a.url(), proxy.url());
        assertThat(events.trace()).containsExactly("fail " + r + " NONE CORRUPT 200 REFRESH_SOFT",
                "fail " + r + " SOFT CORRUPT 200 REFRESH_HARD", "ok " + r + " HARD");
        assertThat(proxy.requests()).extracting(q -> q.header("Cache-Control"))
                .containsExactly(null, "max-age=0", "no-cache");
    }

    @Test
    void anAnswerOlderThanTheServerAllowsIsRefreshedThenFailedOver() throws Exception {
        FakeOutpost staleLogic = new FakeOutpost();
        staleLogic.age = "120"; // max-age=60
        FakeServer stale = server(staleLogic);
        FakeServer fresh = server(new FakeOutpost());
        OutpostClient c = client(ClientConfig.builder().server(stale.url()).server(fresh.url()).retries(0));

        assertThat(browse(c)).hasSize(100);
        String r = route(stale.url(), null);
        assertThat(events.trace()).containsExactly("fail " + r + " NONE STALE 200 REFRESH_SOFT",
                "fail " + r + " SOFT STALE 200 REFRESH_HARD", "fail " + r + " HARD STALE 200 NEXT_SERVER",
                "ok " + route(fresh.url(), null) + " NONE");
    }

    @Test
    void afterEveryRouteFailedTheClientBacksOffAndRetries() throws Exception {
        FakeOutpost logic = new FakeOutpost();
        logic.fail503.set(1);
        FakeServer a = server(logic);
        OutpostClient c = OutpostClient.builder(ClientConfig.builder().server(a.url()).retries(2).cacheMaxBytes(0)
                .backoff(Duration.ofMillis(100), Duration.ofSeconds(1)).build())
                .eventListener(events).sleeper(sleeps::add).build();

        assertThat(browse(c)).hasSize(100);
        assertThat(events.trace()).containsExactly("fail " + route(a.url(), null) + " NONE UNAVAILABLE 503 NEXT_SERVER",
                "backoff 1", "ok " + route(a.url(), null) + " NONE");
        assertThat(sleeps).singleElement().satisfies(d -> assertThat(d).isBetween(Duration.ZERO,
                Duration.ofMillis(100)));
    }

    @Test
    void withOneProxyADownServerAndA5xxServerTheOrderIsFrontiers() throws Exception {
        String down = FakeServer.deadUrl();
        FakeOutpost busy = new FakeOutpost();
        busy.fail503.set(1000);
        FakeServer b = server(busy);
        FakeServer proxy = server(new FakeProxy());
        OutpostClient c = client(ClientConfig.builder().server(down).server(b.url()).proxy(proxy.url()).retries(0));

        assertThatThrownBy(() -> browse(c)).isInstanceOf(OutpostException.class)
                .satisfies(e -> assertThat(((OutpostException) e).kind()).isEqualTo(OutpostException.Kind.UNAVAILABLE));
        assertThat(events.trace()).containsExactly(
                "fail " + route(down, proxy.url()) + " NONE UNAVAILABLE 502 NEXT_SERVER",
                "fail " + route(b.url(), proxy.url()) + " NONE UNAVAILABLE 503 NEXT_SERVER",
                "fail " + route(down, null) + " NONE UNAVAILABLE 0 NEXT_SERVER",
                "fail " + route(b.url(), null) + " NONE UNAVAILABLE 503 NEXT_SERVER", "give-up 4");
    }

    @Test
    void givingUpReportsEveryAttempt() throws Exception {
        FakeOutpost logic = new FakeOutpost();
        logic.fail503.set(1000);
        FakeServer a = server(logic);
        FakeServer b = server(logic);
        OutpostClient c = client(ClientConfig.builder().server(a.url()).server(b.url()).retries(1));

        assertThatThrownBy(() -> browse(c)).isInstanceOf(OutpostException.class)
                .hasMessageContaining("4 attempt(s) over 2 server(s)")
                .satisfies(e -> assertThat(e.getSuppressed()).hasSize(4));
        assertThat(events.trace()).last().isEqualTo("give-up 4");
    }

    @Test
    void closingTheClientEndsItsAttemptTimerAndRefusesLaterRequests() throws Exception {
        FakeServer a = server(new FakeOutpost());
        Set<Thread> before = deadlineTimers();
        OutpostClient c = client(ClientConfig.builder().server(a.url()).retries(0));
        assertThat(deadlineTimers()).as("no thread before the first request").isEqualTo(before);
        browse(c);
        Set<Thread> started = deadlineTimers();
        started.removeAll(before);
        assertThat(started).as("the client's own attempttimeout timer").hasSize(1);

        c.close();
        Thread timer = started.iterator().next();
        timer.join(Duration.ofSeconds(30));
        assertThat(timer.isAlive()).as("ended with the client").isFalse();
        assertThatThrownBy(() -> browse(c)).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
    }

    private static Set<Thread> deadlineTimers() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals("outpost-attempt-deadline")).collect(Collectors.toSet());
    }
}
