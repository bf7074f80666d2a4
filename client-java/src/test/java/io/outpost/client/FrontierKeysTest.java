package io.outpost.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outpost.client.testing.FakeOutpost;
import io.outpost.client.testing.FakeProxy;
import io.outpost.client.testing.FakeServer;
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
                .containsExactly("preferipfamily=6 is not what this JVM does: start it with "
                        + "-Djava.net.preferIPv6Addresses=true");
        assertThatThrownBy(() -> ClientConfig.parse("(serverurl=http://a:8000)(preferipfamily=5)"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("4, 6 or 0");
    }
}
