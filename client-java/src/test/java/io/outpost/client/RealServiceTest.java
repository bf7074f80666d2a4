package io.outpost.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outpost.client.testing.InProcessService;
import java.io.IOException;
import java.net.ServerSocket;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every query type against the real service (started in-process on its SQLite demo database, real HTTP), and
 * failover in front of it: a dead server and a dead proxy are passed over, a 4xx is never retried.
 */
class RealServiceTest {
    /** 2026-01-01T00:00:00Z in ns, the start of the demo's time-keyed IOVs; one hour. */
    static final long T0 = 1_767_225_600_000_000_000L;
    static final long HOUR = 3_600_000_000_000L;
    static InProcessService service;
    static String url;
    static OutpostClient client;

    @BeforeAll
    static void start() throws IOException {
        service = InProcessService.start(null);
        url = service.url();
        client = OutpostClient.create(ClientConfig.builder().server(url).build());
    }

    @AfterAll
    static void stop() {
        if (client != null) {
            client.close();
        }
        if (service != null) {
            service.close();
        }
    }

    static String deadUrl() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return "http://127.0.0.1:" + s.getLocalPort();
        }
    }

    @Test
    void everyQueryTypeAgainstTheDemoData() throws Exception {
        assertThat(client.nodes()).extracting(NodeInfo::path).contains("/DEMO/Calo/Pedestals", "/DEMO/Calo/Gains");
        assertThat(client.channels("/DEMO/DCS/HV")).hasSize(8);
        assertThat(client.tags("/DEMO/Calo/Gains")).extracting(TagInfo::name).contains("GAINS-v1", "GAINS-v2");
        assertThat(client.resolveTag("/DEMO/Calo/Gains", "DEMO-2026").name()).isEqualTo("GAINS-v2");

        long t = T0 + 5 * HOUR + 123;
        Iov one = client.find("/DEMO/Calo/Pedestals", OutpostClient.HEAD, 3, t).orElseThrow();
        assertThat(one.since()).isEqualTo(T0 + 5 * HOUR);
        assertThat(one.until()).isEqualTo(T0 + 6 * HOUR);
        assertThat(one.payload().get("nsamples")).isInstanceOf(Integer.class);
        List<Iov> at = client.objectsAt("/DEMO/Calo/Pedestals", OutpostClient.HEAD, ChannelSelection.all(), t);
        assertThat(at).hasSize(16).contains(one);

        List<Iov> browse = client.browse("/DEMO/DCS/HV", OutpostClient.HEAD, 0, Keys.MAX, ChannelSelection.all(),
                Order.CHANNEL_SINCE);
        assertThat(browse).hasSize(8 * 24);
        assertThat(client.count("/DEMO/DCS/HV", OutpostClient.HEAD, 0, Keys.MAX, ChannelSelection.all())).isEqualTo(8 * 24);
        long streamed = 0;
        try (IovStream s = client.browseStream("/DEMO/DCS/HV", OutpostClient.HEAD, 0, Keys.MAX, ChannelSelection.all(),
                Order.CHANNEL_SINCE)) {
            for (Iov iov = s.next(); iov != null; iov = s.next()) {
                assertThat(iov).isEqualTo(browse.get((int) streamed));
                streamed++;
            }
        }
        assertThat(streamed).isEqualTo(browse.size());

        long run301 = (301L << 32) + 7;
        assertThat(client.find("/DEMO/Calo/Gains", "GAINS-v1", 2, run301).orElseThrow().payload().get("comment"))
                .isEqualTo("initial");
        assertThat(client.find("/DEMO/Calo/Gains", "DEMO-2026", 2, run301).orElseThrow().payload().get("comment"))
                .isEqualTo("recalibrated runs 301-302");
    }

    @Test
    void aDeadServerAndADeadProxyArePassedOver() throws Exception {
        try (OutpostClient c = OutpostClient.create(ClientConfig.builder().servers(List.of(deadUrl(), url))
                .proxy(deadUrl()).build())) {
            assertThat(c.count("/DEMO/DCS/HV", OutpostClient.HEAD, 0, Keys.MAX, ChannelSelection.all())).isEqualTo(8 * 24);
        }
    }

    @Test
    void anUnknownFolderIsNotFoundAndNotRetried() {
        assertThatThrownBy(() -> client.count("/DEMO/NoSuchFolder", OutpostClient.HEAD, 0, 1, ChannelSelection.all()))
                .isInstanceOf(OutpostException.class)
                .satisfies(e -> assertThat(((OutpostException) e).kind()).isEqualTo(OutpostException.Kind.NOT_FOUND))
                .satisfies(e -> assertThat(e.getSuppressed().length).isLessThanOrEqualTo(1));
    }
}
