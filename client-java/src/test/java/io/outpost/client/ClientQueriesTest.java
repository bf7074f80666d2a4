package io.outpost.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outpost.client.testing.FakeOutpost;
import io.outpost.client.testing.FakeServer;
import io.outpost.client.testing.FakeServer.Reply;
import io.outpost.client.testing.RecordingListener;
import io.outpost.client.testing.WireEncoder;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Queries, canonical URLs, cache alignment, the in-process cache, streaming and concurrency on one client. */
class ClientQueriesTest {
    private FakeServer server;
    private final FakeOutpost origin = new FakeOutpost();
    private final RecordingListener events = new RecordingListener();
    private final AtomicLong now = new AtomicLong(1_000_000_000L);

    @BeforeEach
    void start() throws Exception {
        server = FakeServer.start(origin);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private OutpostClient client(ClientConfig.Builder b) {
        return OutpostClient.builder(b.server(server.url()).build()).eventListener(events).ticker(now::get).build();
    }

    private List<String> paths() {
        return server.requests().stream().map(FakeServer.Request::path).toList();
    }

    @Test
    void anAtTimeQueryFetchesTheAlignedWindowAndSelectsLocally() throws Exception {
        OutpostClient c = client(ClientConfig.builder().timeAlign(new CacheAlign(1000, 2)));

        List<Iov> at = c.objectsAt("/A/Time", "HEAD", ChannelSelection.parse("3,1-2"), 1250);

        assertThat(at).extracting(Iov::channel).containsExactly(1L, 2L, 3L);
        assertThat(at).allSatisfy(i -> assertThat(i.isValidAt(1250)).isTrue());
        assertThat(at.get(0).payload().get("value")).isEqualTo(1012.0);
        assertThat(paths()).containsExactly("/v1/bin/nodes", "/v1/bin/browse/HEAD/1000/1999/1-3/cs/A/Time");

        // Same window (lo = 1250 - 1250 mod 500 = 1000) from the in-process cache: no request.
        assertThat(c.find("/A/Time", "HEAD", 2, 1499)).map(Iov::since).contains(1400L);
        assertThat(c.objectsAt("/A/Time", "HEAD", ChannelSelection.range(1, 3), 1499)).hasSize(3);
        assertThat(server.requestCount()).isEqualTo(3);
        assertThat(paths().get(2)).isEqualTo("/v1/bin/browse/HEAD/1000/1999/2/cs/A/Time");
    }

    @Test
    void runLumiFoldersAlignOnRuns() throws Exception {
        OutpostClient c = client(ClientConfig.builder());
        long t = Keys.ofRunLumi(0, 4321);
        c.objectsAt("/A/Run", "HEAD", ChannelSelection.all(), t);
        assertThat(paths()).last().isEqualTo("/v1/bin/browse/HEAD/0/4294967295/all/cs/A/Run");
    }

    @Test
    void withoutAlignmentTheExactUrlIsAskedAndItsValidityRangeIsCached() throws Exception {
        OutpostClient c = client(ClientConfig.builder().cacheAlign(false));

        assertThat(c.find("/A/Time", "HEAD", 4, 250)).map(Iov::since).contains(200L);
        assertThat(c.find("/A/Time", "HEAD", 4, 299)).map(Iov::since).contains(200L);
        assertThat(c.find("/A/Time", "HEAD", 4, 300)).map(Iov::since).contains(300L);

        assertThat(paths()).containsExactly("/v1/bin/at/HEAD/250/4/A/Time", "/v1/bin/at/HEAD/300/4/A/Time");
    }

    @Test
    void theInProcessCacheHonoursMaxAge() throws Exception {
        OutpostClient c = client(ClientConfig.builder());
        c.channels("/A/Time");
        c.channels("/A/Time");
        assertThat(server.requestCount()).isEqualTo(1);
        now.addAndGet(61_000_000_000L); // max-age=60
        c.channels("/A/Time");
        assertThat(server.requestCount()).isEqualTo(2);

        origin.cacheControl = "no-store";
        c.tags("/A");
        c.tags("/A");
        assertThat(server.requestCount()).isEqualTo(4);
    }

    @Test
    void catalogueQueriesAreTyped() throws Exception {
        OutpostClient c = client(ClientConfig.builder());
        assertThat(c.nodes()).extracting(NodeInfo::path).containsExactly("/A", "/A/Time", "/A/Run");
        assertThat(c.nodes().get(2).isRunLumi()).isTrue();
        assertThat(c.channels("/A/Time")).hasSize(10).first().isEqualTo(new ChannelInfo(0, "c0", null));
        assertThat(c.tags("/A")).extracting(TagInfo::lock).containsExactly("locked");
        assertThat(c.resolveTag("/A/Time", "GLOBAL-1").name()).isEqualTo("GLOBAL-1-resolved");
        assertThat(c.count("/A/Time", "HEAD", 0, 999, ChannelSelection.named("c7"))).isEqualTo(10);
        assertThat(paths()).contains("/v1/bin/tag/GLOBAL-1/A/Time", "/v1/bin/count/HEAD/0/999/name:c7/A/Time");
    }

    @Test
    void requestsIdentifyTheClient() throws Exception {
        client(ClientConfig.builder().clientId("myjob/2.1")).channels("/A/Time");
        FakeServer.Request r = server.requests().get(0);
        assertThat(r.header("X-Outpost-Client"))
                .matches("myjob/2\\.1 " + ProcessHandle.current().pid() + " \\S+");
        assertThat(r.header("User-Agent")).isEqualTo(r.header("X-Outpost-Client"));
        assertThat(r.header("Cache-Control")).as("a plain request must not bypass caches").isNull();
        assertThat(r.header("Pragma")).isNull();
    }

    @Test
    void aStreamedBrowseDecodesRowByRowAndVerifiesTheTrailerAtTheEnd() throws Exception {
        OutpostClient c = client(ClientConfig.builder());
        long n = 0;
        try (IovStream s = c.browseStream("/A/Time", "HEAD", 0, Keys.MAX, ChannelSelection.all(),
                Order.CHANNEL_SINCE)) {
            assertThat(s.payloadSchema().columns()).isEqualTo(FakeOutpost.PAYLOAD);
            for (Iov iov; (iov = s.next()) != null; ) {
                n++;
            }
        }
        assertThat(n).isEqualTo(FakeOutpost.CHANNELS * FakeOutpost.END / FakeOutpost.STEP);
    }

    @Test
    void aStreamWithABadCrcThrowsAtTheEnd() throws Exception {
        byte[] bad = WireEncoder.iovs("/A/Time", "HEAD", FakeOutpost.PAYLOAD).lieAboutCrc(7)
                .encode(FakeOutpost.browseRows("all", 0, 999));
        try (FakeServer liar = FakeServer.start(r -> Reply.of(200, bad))) {
            OutpostClient c = OutpostClient.create(ClientConfig.builder().server(liar.url()).build());
            try (IovStream s = c.browseStream("/A/Time", "HEAD", 0, 999, ChannelSelection.all(), Order.SINCE_CHANNEL)) {
                for (int i = 0; i < 100; i++) {
                    assertThat(s.next()).isNotNull();
                }
                assertThatThrownBy(s::next).isInstanceOf(OutpostException.class).hasMessageContaining("CRC-32")
                        .satisfies(e -> assertThat(((OutpostException) e).kind())
                                .isEqualTo(OutpostException.Kind.CORRUPT));
            }
            assertThat(liar.requestCount()).isEqualTo(1);
        }
    }

    @Test
    void manyThreadsShareOneClient() throws Exception {
        OutpostClient c = client(ClientConfig.builder().cacheMaxBytes(1 << 20).timeAlign(new CacheAlign(500, 1)));
        ExecutorService pool = Executors.newFixedThreadPool(16);
        try {
            List<Future<Integer>> results = new ArrayList<>();
            for (int task = 0; task < 16; task++) {
                results.add(pool.submit(() -> {
                    int checked = 0;
                    for (int i = 0; i < 40; i++) {
                        long t = ThreadLocalRandom.current().nextLong(FakeOutpost.END);
                        long ch = ThreadLocalRandom.current().nextLong(FakeOutpost.CHANNELS);
                        Optional<Iov> iov = i % 2 == 0 ? c.find("/A/Time", "HEAD", ch, t)
                                : c.browse("/A/Time", "HEAD", t, t, ChannelSelection.channel(ch), Order.CHANNEL_SINCE)
                                        .stream().findFirst();
                        assertThat(iov).get().satisfies(v -> {
                            assertThat(v.channel()).isEqualTo(ch);
                            assertThat(v.isValidAt(t)).isTrue();
                            assertThat(v.payload().get("value")).isEqualTo(ch * 1000.0 + (t - t % 100) / 100);
                        });
                        checked++;
                    }
                    return checked;
                }));
            }
            for (Future<Integer> f : results) {
                assertThat(f.get()).isEqualTo(40);
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
