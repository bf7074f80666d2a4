package io.outpost.integration;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.client.ChannelSelection;
import io.outpost.client.ClientConfig;
import io.outpost.client.Iov;
import io.outpost.client.Keys;
import io.outpost.client.Order;
import io.outpost.client.OutpostClient;
import io.outpost.testkit.SquidProcess;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The Java client configured with a real Squid as its proxy, as a grid job would be: every query type answers
 * through Squid, and a second job (a second client, with its own in-process cache) is served by Squid without
 * reaching Outpost.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JavaClientThroughSquidTest {
    private SiteCache site;
    private OutpostServer outpost;
    private SquidProcess squid;

    @BeforeAll
    void start() {
        Assumptions.assumeTrue(SquidProcess.installed(), SquidProcess.NOT_INSTALLED);
        site = SiteCache.start("java-client", TestData::writeCond);
        outpost = site.outpost;
        squid = site.squid;
    }

    @AfterAll
    void stop() {
        if (site != null) {
            site.close();
        }
    }

    private OutpostClient job() {
        return OutpostClient.create(ClientConfig.builder().server(outpost.baseUrl())
                .proxy("http://127.0.0.1:" + squid.port()).build());
    }

    @Test
    void everyQueryGoesThroughSquidAndASecondJobIsServedFromIt() throws Exception {
        List<Iov> first;
        try (OutpostClient c = job()) {
            assertThat(c.nodes()).isNotEmpty();
            assertThat(c.channels(TestData.COND)).hasSize(4);
            assertThat(c.count(TestData.COND, OutpostClient.HEAD, 0, Keys.MAX, ChannelSelection.all())).isEqualTo(8);
            first = c.browse(TestData.COND, OutpostClient.HEAD, 0, Keys.MAX, ChannelSelection.all(), Order.CHANNEL_SINCE);
            assertThat(first).hasSize(8);
            assertThat(c.find(TestData.COND, OutpostClient.HEAD, 2, 1500).orElseThrow().payload().get("s"))
                    .isEqualTo("current-2");
        }
        long reachedOutpost = outpost.requests().all().size();
        assertThat(outpost.requests().all()).allSatisfy(e -> assertThat(e.via()).contains("squid"));
        try (OutpostClient second = job()) {
            assertThat(second.browse(TestData.COND, OutpostClient.HEAD, 0, Keys.MAX, ChannelSelection.all(),
                    Order.CHANNEL_SINCE)).isEqualTo(first);
            assertThat(second.count(TestData.COND, OutpostClient.HEAD, 0, Keys.MAX, ChannelSelection.all())).isEqualTo(8);
        }
        assertThat(outpost.requests().all()).as("the second job's requests were answered by Squid").hasSize((int) reachedOutpost);
    }
}
