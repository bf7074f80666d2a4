package io.outpost.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Checks against a running Outpost service that hold for any data set. Skipped unless a base URL is given:
 * {@code ./mvnw -B -o test -pl client-java -Doutpost.baseUrl=http://localhost:8000} (optionally
 * {@code -Doutpost.proxy=http://localhost:3128} to go through Squid).
 */
class LiveServerTest {
    static final String BASE_URL = System.getProperty("outpost.baseUrl", System.getenv("OUTPOST_IT_SERVER"));
    static OutpostClient client;

    @BeforeAll
    static void connect() {
        assumeTrue(BASE_URL != null && !BASE_URL.isBlank(), "no -Doutpost.baseUrl: live-server tests skipped");
        ClientConfig.Builder b = ClientConfig.builder().server(BASE_URL);
        String proxy = System.getProperty("outpost.proxy");
        if (proxy != null) {
            b.proxy(proxy);
        }
        client = OutpostClient.create(b.build());
    }

    @Test
    void everyFolderAnswersConsistently() throws Exception {
        List<NodeInfo> folders = client.nodes().stream().filter(NodeInfo::folder).limit(5).toList();
        assertThat(folders).isNotEmpty();
        for (NodeInfo f : folders) {
            client.channels(f.path());
            client.tags(f.path());
            long count = client.count(f.path(), OutpostClient.HEAD, 0, Keys.MAX, ChannelSelection.all());
            if (count > 100_000) {
                continue;
            }
            List<Iov> all = client.browse(f.path(), OutpostClient.HEAD, 0, Keys.MAX, ChannelSelection.all(),
                    Order.CHANNEL_SINCE);
            assertThat(all).hasSize((int) count);
            if (!all.isEmpty()) {
                Iov some = all.get(all.size() / 2);
                assertThat(client.find(f.path(), OutpostClient.HEAD, some.channel(), some.since())).contains(some);
            }
        }
    }
}
