package io.outpost.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The shared configuration vectors (testdata/config/cases.json), read as the C++ and Python clients read them: every
 * configuration string and environment gives the normalised configuration, or the kind of error, all three reach.
 */
class ConfigVectorsTest {
    private static final Path CASES = Path.of(System.getProperty("outpost.testdata", "../testdata"))
            .resolve("config/cases.json");
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final JsonNode DOC = JSON.readTree(CASES.toFile());
    /** A warning only this client gives, about the JVM's own address order (README: "Client notes"). */
    private static final String JVM_ORDER_WARNING = "orders the proxies' addresses; direct connections follow";

    @TestFactory
    Stream<DynamicTest> everyCase() {
        return DOC.get("cases").valueStream().map(c -> DynamicTest.dynamicTest(c.get("name").asString(), () -> check(c)));
    }

    @Test
    void theCasesReachEveryErrorKindAndSomeWarnings() {
        Set<String> kinds = new HashSet<>();
        DOC.get("cases").forEach(c -> {
            if (c.has("error")) {
                kinds.add(c.get("error").get("kind").asString());
            }
        });
        assertThat(kinds).containsExactlyInAnyOrderElementsOf(DOC.get("error_kinds").propertyNames());
        assertThat(DOC.get("cases").size()).isGreaterThanOrEqualTo(100);
    }

    private static void check(JsonNode c) {
        String name = c.get("name").asString();
        if (c.has("error")) {
            Throwable t = catchThrowable(() -> configured(c));
            assertThat(t).as(name + ": an error").isInstanceOfAny(IllegalArgumentException.class, IllegalStateException.class);
            String message = t.getMessage().toLowerCase(Locale.ROOT);
            JsonNode error = c.get("error");
            assertThat(message).as(name).contains(DOC.get("error_kinds").get(error.get("kind").asString()).asString());
            if (!error.get("key").isNull()) {
                assertThat(message).as(name).contains(error.get("key").asString());
            }
        } else {
            Map<String, Object> expected = new LinkedHashMap<>(JSON.convertValue(DOC.get("defaults"), Map.class));
            expected.putAll(JSON.convertValue(c.get("expect"), Map.class));
            assertThat(normalised(configured(c))).as(name).isEqualTo(numbersAsLong(expected));
        }
    }

    private static ClientConfig configured(JsonNode c) {
        return c.has("config") ? ClientConfig.parse(c.get("config").asString())
                : ClientConfig.fromEnvironment(JSON.convertValue(c.get("env"), Map.class));
    }

    /** JSON numbers compared as numbers, whatever their Java type. */
    private static Map<String, Object> numbersAsLong(Map<String, Object> m) {
        m.replaceAll((k, v) -> v instanceof Number num ? (Object) num.longValue() : v);
        return m;
    }

    /** The configuration in the vectors' terms (testdata/config/README.md). */
    private static Map<String, Object> normalised(ClientConfig c) {
        Map<String, Object> n = new LinkedHashMap<>();
        n.put("servers", c.servers().stream().map(Endpoint::toString).toList());
        n.put("proxies", c.proxies().stream().map(Endpoint::toString).toList());
        n.put("backup_proxies", c.backupProxies().stream().map(Endpoint::toString).toList());
        n.put("proxy_config_urls", c.proxyConfigUrls());
        n.put("failover_to_server", c.failoverToServer());
        n.put("load_balance", c.loadBalance().name().toLowerCase(Locale.ROOT));
        n.put("retries", c.retries());
        n.put("connect_timeout_ms", c.connectTimeout().toMillis());
        n.put("read_timeout_ms", c.readTimeout().toMillis());
        n.put("write_timeout_ms", c.writeTimeout().toMillis());
        n.put("attempt_timeout_ms", c.attemptTimeout().toMillis());
        n.put("backoff_ms", c.backoffBase().toMillis());
        n.put("max_backoff_ms", c.backoffMax().toMillis());
        n.put("cache_window_secs", c.cacheAlignEnabled() ? c.alignFor("/x", false).length() / 1_000_000_000L : 0L);
        // the divisions are kept with alignment off too; the configuration's own text form shows them
        n.put("cache_align", Long.parseLong(c.toString().replaceAll(".*\\(cachealign=(\\d+)\\).*", "$1")));
        n.put("cache_max_bytes", c.cacheMaxBytes());
        n.put("client_id", c.clientId().equals(ClientConfig.defaults().clientId()) ? null : c.clientId());
        n.put("force_reload", c.forceReload());
        n.put("max_age_secs", c.maxAgeSecs());
        n.put("fresh_key", c.freshKey() == null ? "" : c.freshKey());
        n.put("logical_server", c.logicalServer() == null ? "" : c.logicalServer().toString());
        n.put("prefer_ip_family", c.preferIpFamily());
        n.put("security", c.signedAnswers() ? "sig" : "none");
        n.put("verify_keys", c.verifyKeys().entrySet().stream().map(e -> List.of(e.getKey(), e.getValue())).toList());
        n.put("accept_sig1", c.acceptSig1());
        n.put("max_answer_bytes", c.maxAnswerBytes());
        n.put("warnings", c.warnings().stream().filter(w -> !w.contains(JVM_ORDER_WARNING)).toList());
        return numbersAsLong(n);
    }
}
