package io.outpost.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outpost.client.testing.FakeOutpost;
import io.outpost.client.testing.FakeProxy;
import io.outpost.client.testing.FakeServer;
import io.outpost.client.testing.TestHostNames;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** frontier_client's preferipfamily, writetimeoutsecs and logicalserverurl (docs/client-failover.md). */
class FrontierKeysTest {

    @Test
    void logicalServerIsTheUrlRequestsThroughAProxyName() throws Exception {
        try (FakeServer origin = FakeServer.start(new FakeOutpost()); FakeServer proxy = FakeServer.start(new FakeProxy())) {
            String physical = FakeServer.deadUrl(); // nothing listens there: only the logical name reaches the origin
            ClientConfig cfg = ClientConfig.parse("(serverurl=" + physical + ")(proxyurl=" + proxy.url()
                    + ")(logicalserverurl=" + origin.url() + ")(retries=0)");
            try (OutpostClient c = OutpostClient.create(cfg)) {
                assertThat(c.channels("/A/Time")).hasSize(FakeOutpost.CHANNELS);
            }
            assertThat(proxy.requests()).singleElement().extracting(FakeServer.Request::target)
                    .isEqualTo(origin.url() + "/v1/bin/channels/A/Time");
            assertThat(ClientConfig.parse(cfg.toString()).logicalServer()).isEqualTo(Endpoint.parse(origin.url()));
        }
    }

    @Test
    void preferIpFamilyAndWriteTimeoutAreCheckedAndKept() {
        ClientConfig cfg = ClientConfig.parse("(serverurl=http://a:8000)(preferipfamily=0)(writetimeoutsecs=2.5)");
        assertThat(cfg.preferIpFamily()).isZero();
        assertThat(cfg.writeTimeout()).isEqualTo(Duration.ofMillis(2500));
        assertThat(cfg.warnings()).isEmpty();
        assertThat(ClientConfig.parse(cfg.toString()).writeTimeout()).isEqualTo(Duration.ofMillis(2500));
        assertThat(ClientConfig.parse("(serverurl=http://a:8000)(preferipfamily=6)").warnings())
                .containsExactly("preferipfamily=6 orders the proxies' addresses; direct connections follow this JVM's"
                        + " order: start it with -Djava.net.preferIPv6Addresses=true");
        assertThatThrownBy(() -> ClientConfig.parse("(serverurl=http://a:8000)(preferipfamily=5)"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("4, 6 or 0");
    }

    /**
     * preferipfamily picks the family of a proxy's addresses connected first: a proxy name with an IPv4 and an IPv6
     * address (given by the test resolver, not the machine's DNS), where the IPv6 "proxy" answers 503.
     */
    @Test
    void preferIpFamilyChoosesTheProxyAddressConnectedFirst() throws Exception {
        try (FakeServer origin = FakeServer.start(new FakeOutpost()); FakeServer v4 = FakeServer.start(new FakeProxy());
             FakeServer v6 = FakeServer.startOn(new java.net.InetSocketAddress("::1", v4.port()),
                     r -> FakeServer.Reply.of(503, "the IPv6 proxy".getBytes()))) {
            TestHostNames.ADDRESSES.put("dual.test", java.util.List.of(java.net.InetAddress.getByName("127.0.0.1"),
                    java.net.InetAddress.getByName("::1")));
            try {
                for (int family : new int[] {4, 6}) {
                    ClientConfig cfg = ClientConfig.parse("(serverurl=" + origin.url() + ")(proxyurl=http://dual.test:"
                            + v4.port() + ")(preferipfamily=" + family + ")(failovertoserver=no)(retries=0)");
                    try (OutpostClient c = OutpostClient.create(cfg)) {
                        if (family == 4) {
                            assertThat(c.channels("/A/Time")).hasSize(FakeOutpost.CHANNELS);
                        } else {
                            assertThatThrownBy(() -> c.channels("/A/Time")).hasMessageContaining("503");
                        }
                    }
                }
                assertThat(v4.requestCount()).isEqualTo(1);
                assertThat(v6.requestCount()).isEqualTo(1);
            } finally {
                TestHostNames.ADDRESSES.remove("dual.test");
            }
        }
    }

    @Test
    void preferIpFamilyFallsBackToTheOtherFamilyWhenThePreferredOneIsNotListening() throws Exception {
        try (FakeServer origin = FakeServer.start(new FakeOutpost()); FakeServer v4 = FakeServer.start(new FakeProxy())) {
            TestHostNames.ADDRESSES.put("v4only.test", java.util.List.of(java.net.InetAddress.getByName("127.0.0.1"),
                    java.net.InetAddress.getByName("::1")));
            try (OutpostClient c = OutpostClient.create(ClientConfig.parse("(serverurl=" + origin.url()
                    + ")(proxyurl=http://v4only.test:" + v4.port() + ")(preferipfamily=6)(failovertoserver=no)(retries=0)"))) {
                assertThat(c.channels("/A/Time")).hasSize(FakeOutpost.CHANNELS);
                assertThat(v4.requestCount()).isEqualTo(1);
            } finally {
                TestHostNames.ADDRESSES.remove("v4only.test");
            }
        }
    }
}
