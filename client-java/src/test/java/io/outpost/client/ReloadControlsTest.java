package io.outpost.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outpost.client.testing.FakeOutpost;
import io.outpost.client.testing.FakeServer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** frontier_client's reload controls on native requests (docs/client-failover.md, "Reload controls"). */
class ReloadControlsTest {
    private FakeServer origin;

    @AfterEach
    void stop() {
        if (origin != null) {
            origin.close();
        }
    }

    /** The Cache-Control (and Pragma) each request carried: HEAD list, HEAD browse, tagged browse, twice each. */
    private List<String> sent(String options) throws Exception {
        origin = FakeServer.start(new FakeOutpost());
        ClientConfig cfg = ClientConfig.builder().frontierString("(serverurl=" + origin.url() + ")" + options)
                .retries(0).backoff(Duration.ZERO, Duration.ZERO).build();
        try (OutpostClient c = OutpostClient.create(cfg)) {
            for (int i = 0; i < 2; i++) {
                c.channels("/A/Time");
                c.browse("/A/Time", "HEAD", 0, 99, ChannelSelection.all(), Order.CHANNEL_SINCE);
                c.browse("/A/Time", "T-1", 0, 99, ChannelSelection.all(), Order.CHANNEL_SINCE);
            }
        }
        return origin.requests().stream().map(r -> r.path().split("/")[3] + (r.path().contains("/T-1/") ? "@tag" : "")
                + " " + r.header("cache-control") + (r.header("pragma") == null ? "" : " " + r.header("pragma")))
                .toList();
    }

    @Test
    void withoutControlsTheInProcessCacheAnswersRepeatsAndNothingIsForced() throws Exception {
        assertThat(sent("")).containsExactly("channels null", "browse null", "browse@tag null");
    }

    @Test
    void forceReloadShortReloadsShortLivedAnswersOnly() throws Exception {
        assertThat(sent("(forcereload=short)")).containsExactly("channels no-cache no-cache", "browse no-cache no-cache",
                "browse@tag null", "channels no-cache no-cache", "browse no-cache no-cache");
    }

    @Test
    void shortForeverIsShortAsInFrontierClient() throws Exception {
        // frontier_client takes the first of short, long, forever that the value contains
        List<String> shortOnly = sent("(forcereload=short)");
        origin.close();
        assertThat(sent("(forcereload=shortforever)")).isEqualTo(shortOnly);
        origin.close();
        assertThat(sent("(forcereload=softshortforever)")).containsExactly("channels max-age=0", "browse max-age=0",
                "browse@tag null", "channels max-age=0", "browse max-age=0");
    }

    @Test
    void softLongRevalidatesEverythingButPinnedAnswersAndMaxAgeSecsZeroIsTheSame() throws Exception {
        List<String> soft = List.of("channels max-age=0", "browse max-age=0", "browse@tag max-age=0",
                "channels max-age=0", "browse max-age=0", "browse@tag max-age=0");
        assertThat(sent("(forcereload=softlong)")).isEqualTo(soft);
        origin.close();
        assertThat(sent("(maxagesecs=0)")).isEqualTo(soft);
    }

    @Test
    void maxAgeSecsAsksForYoungCopiesAndFreshKeyRevalidatesShortLivedAnswers() throws Exception {
        assertThat(sent("(maxagesecs=30)")).containsExactly("channels max-age=30", "browse max-age=30",
                "browse@tag max-age=30");
        origin.close();
        assertThat(sent("(freshkey=abc)")).containsExactly("channels max-age=0", "browse max-age=0",
                "browse@tag null", "channels max-age=0", "browse max-age=0");
    }

    @Test
    void environmentAndBadValues() {
        ClientConfig cfg = ClientConfig.fromEnvironment(Map.of("FRONTIER_SERVER", "http://a:8000",
                "FRONTIER_FORCERELOAD", "softshort", "FRONTIER_FRESHKEY", "long-k1"));
        assertThat(cfg.forceReload()).isEqualTo("softshort");
        assertThat(cfg.freshKey()).isEqualTo("long-k1");
        assertThat(ClientConfig.parse(cfg.toString()).forceReload()).isEqualTo("softshort");
        assertThatThrownBy(() -> ClientConfig.parse("(serverurl=a:1)(forcereload=sometimes)"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("sometimes");
    }
}
