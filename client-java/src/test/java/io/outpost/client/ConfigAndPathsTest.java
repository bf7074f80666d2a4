package io.outpost.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConfigAndPathsTest {

    @Test
    void defaultsWork() {
        ClientConfig c = ClientConfig.defaults();
        assertThat(c.servers()).containsExactly(Endpoint.parse("http://localhost:8000"));
        assertThat(c.proxies()).isEmpty();
        assertThat(c.failoverToServer()).isTrue();
        assertThat(c.connectTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(c.alignFor("/X", false)).isEqualTo(CacheAlign.TIME_DEFAULT);
    }

    @Test
    void theBuilderRejectsBadValues() {
        assertThatThrownBy(() -> ClientConfig.builder().retries(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ClientConfig.builder().connectTimeout(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ClientConfig.builder().server("ftp://x")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ClientConfig.builder().proxy("http://p:3128/path"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ClientConfig.builder().clientId("bad id\n"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ClientConfig.builder().failoverToServer(false).build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("no route");
        assertThatThrownBy(() -> new CacheAlign(0, 1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aFrontierStyleStringConfiguresEverything() {
        ClientConfig c = ClientConfig.parse("frontier://(serverurl=http://a:8000/outpost)(serverurl=b:8001)"
                + "(proxyurl=http://squid:3128)(retries=3)(connecttimeoutsecs=2)(readtimeoutsecs=30)"
                + "(loadbalance=proxies)(unknownkey=(nested)value)(clientid=job/1)/db");
        assertThat(c.servers()).containsExactly(Endpoint.parse("http://a:8000/outpost"), Endpoint.parse("http://b:8001"));
        assertThat(c.servers().get(0).resolve("/v1/bin/nodes").toString())
                .isEqualTo("http://a:8000/outpost/v1/bin/nodes");
        assertThat(c.proxies()).containsExactly(Endpoint.parse("squid:3128"));
        assertThat(c.retries()).isEqualTo(3);
        assertThat(c.readTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(c.loadBalance()).isEqualTo(LoadBalance.PROXIES);
        assertThat(c.clientId()).isEqualTo("job/1");
        assertThat(ClientConfig.parse(c.toString()).toString()).isEqualTo(c.toString());

        ClientConfig backup = ClientConfig.parse("(serverurl=http://a:8000)(backupproxyurl=http://b:3128)");
        assertThat(backup.failoverToServer()).isFalse();
        assertThatThrownBy(() -> ClientConfig.parse("(serverurl=http://a")).hasMessageContaining("unbalanced");
    }

    @Test
    void theEnvironmentConfiguresServersAndProxies() {
        ClientConfig c = ClientConfig.fromEnvironment(Map.of("OUTPOST_SERVER", "http://a:8000;http://b:8000",
                "OUTPOST_SERVER1", "http://c:8000", "OUTPOST_PROXY", "http://squid:3128",
                "OUTPOST_READTIMEOUTSECS", "20", "OUTPOST_ID", "env/1"));
        assertThat(c.servers()).extracting(Endpoint::host).containsExactly("a", "b", "c");
        assertThat(c.proxies()).extracting(Endpoint::host).containsExactly("squid");
        assertThat(c.readTimeout()).isEqualTo(Duration.ofSeconds(20));
        assertThat(c.clientId()).isEqualTo("env/1");

        ClientConfig fr = ClientConfig.fromEnvironment(Map.of("FRONTIER_SERVER", "http://fs:8000/Frontier",
                "FRONTIER_PROXY1", "http://sq:3128", "FRONTIER_READTIMEOUTSECS", "7"));
        assertThat(fr.servers()).extracting(Endpoint::host).containsExactly("fs");
        assertThat(fr.proxies()).extracting(Endpoint::host).containsExactly("sq");
        assertThat(fr.readTimeout()).isEqualTo(Duration.ofSeconds(7));
        assertThat(ClientConfig.parse("(serverurl=a)(backoff=0.5)(cachewindow=0)").cacheAlignEnabled()).isFalse();
        assertThat(ClientConfig.parse("(serverurl=a)(backoff=0.5)").backoffBase()).isEqualTo(Duration.ofMillis(500));

        // proxies in OUTPOST_SERVER's string and in OUTPOST_PROXY: to be added or replaced? Refused.
        assertThatThrownBy(() -> ClientConfig.fromEnvironment(Map.of("OUTPOST_SERVER",
                "(serverurl=http://x:1)(proxyurl=p:2)", "OUTPOST_PROXY", "http://q:3")))
                .hasMessageContaining("proxyurl given twice");
    }

    @Test
    void urlsAreCanonical() {
        assertThat(Paths.at("HEAD", 7, ChannelSelection.parse("9-12,1-4,7,5-5"), "/DEMO/Calo/Pedestals"))
                .isEqualTo("/v1/bin/at/HEAD/7/1-5,7,9-12/DEMO/Calo/Pedestals");
        assertThat(ChannelSelection.parse("1-3,4").pathSegment()).isEqualTo("1-4");
        assertThat(ChannelSelection.parse("5-5").pathSegment()).isEqualTo("5");
        assertThat(ChannelSelection.named("Tile A/é~").pathSegment()).isEqualTo("name:Tile%20A%2F%C3%A9~");
        // a channel name is passed on exactly as written: 'ch0 ' is not ch0
        assertThat(ChannelSelection.parse("name:ch0 ").pathSegment()).isEqualTo("name:ch0%20");
        assertThat(ChannelSelection.parse(" name: ch0").pathSegment()).isEqualTo("name:%20ch0");
        assertThat(Paths.browse("GAINS-v1", 0, Keys.MAX, ChannelSelection.all(), Order.SINCE_DESC_CHANNEL, "/D/G"))
                .isEqualTo("/v1/bin/browse/GAINS-v1/0/9223372036854775807/all/sdc/D/G");
        assertThat(Paths.count("HEAD", 1, 2, ChannelSelection.channel(3), "/D")).isEqualTo("/v1/bin/count/HEAD/1/2/3/D");
        assertThat(Paths.tag("DEMO-2026", "/DEMO/Calo/Gains")).isEqualTo("/v1/bin/tag/DEMO-2026/DEMO/Calo/Gains");
        assertThat(Paths.nodes()).isEqualTo("/v1/bin/nodes");
        assertThatThrownBy(() -> Paths.channels("/A/")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Paths.count("HEAD", 5, 4, ChannelSelection.all(), "/A"))
                .hasMessageContaining("t1 > t2");
        assertThatThrownBy(() -> Paths.tags("A")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Paths.tag("bad tag", "/A")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ChannelSelection.parse("3-1")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void keysParseNsIsoAndRunLumi() {
        assertThat(Keys.parse("1767229200000000000")).isEqualTo(1767229200000000000L);
        assertThat(Keys.parse("2026-01-01T01:00:00Z")).isEqualTo(1767229200000000000L);
        assertThat(Keys.parse("2026-01-01T01:00")).isEqualTo(1767229200000000000L);
        assertThat(Keys.parse("2026-01-01T02:00:00+01:00")).isEqualTo(1767229200000000000L);
        assertThat(Keys.parse("2026-01-01")).isEqualTo(1767225600000000000L);
        assertThat(Keys.parse("284500/12")).isEqualTo((284500L << 32) | 12);
        assertThat(Keys.parse("max")).isEqualTo(Long.MAX_VALUE);
        assertThatThrownBy(() -> Keys.parse("yesterday")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Keys.parse("99999999999999999999")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void cacheAlignFollowsAtlas() {
        CacheAlign a = new CacheAlign(600, 3);
        assertThat(a.lo(1234)).isEqualTo(1200);
        assertThat(a.hiInclusive(1234)).isEqualTo(1799);
        assertThat(new CacheAlign(1000, 1).hiInclusive(Long.MAX_VALUE - 1)).isEqualTo(Long.MAX_VALUE);
        assertThat(List.of(CacheAlign.RUN_LUMI_DEFAULT.lo(Keys.ofRunLumi(7, 99)))).containsExactly(7L << 32);
    }
}
