package io.outpost.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outpost.server.OutpostApplication;
import io.outpost.server.connections.HttpProperties;
import io.outpost.server.pin.SnapshotProperties;
import io.outpost.server.rows.RowStoreProperties;
import io.outpost.server.signing.SigningProperties;
import io.outpost.server.web.ExportProperties;
import io.outpost.server.write.WriteProperties;
import io.outpost.testkit.TempDirs;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Pattern;
import org.assertj.core.api.ThrowableAssert;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

/**
 * Every setting is bound into a {@code @Validated} record, and a value out of its limits stops the start with a
 * message naming its key (the records are bound here as the service binds them: Spring Boot's binder and the
 * Jakarta constraints on each record, without the rest of the service).
 */
class SettingsValidationTest {

    @Configuration(proxyBeanMethods = false)
    @EnableConfigurationProperties({OutpostProperties.class, HttpProperties.class, ExportProperties.class,
            RowStoreProperties.class, SnapshotProperties.class, SigningProperties.class, WriteProperties.class,
            ReadReplicaProperties.class})
    static class AllSettings {
    }

    private final ApplicationContextRunner runner =
            new ApplicationContextRunner().withUserConfiguration(AllSettings.class);

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
            "outpost.http.max-connections-per-address | -1    | must be 0 (no limit) or more, not -1",
            "outpost.http.ipv6-prefix-length          | 0     | must be 1 to 128, not 0",
            "outpost.http.ipv6-prefix-length          | 129   | must be 1 to 128, not 129",
            "outpost.http.unlimited-addresses         | squid.example.org | 'squid.example.org' is not an IP address",
            "outpost.http.request-head-timeout        | 0s    | must be positive",
            "outpost.http.busy-connections-percent    | 101   | must be 0 (never) to 100, not 101",
            "outpost.http.busy-idle-timeout           | 0s    | must be positive while",
            "outpost.export.max-concurrent            | -1    | must be 0 (off) or more, not -1",
            "outpost.trusted-proxies                  | 192.0.2.0/99 | '192.0.2.0/99' is not an IP address",
            "outpost.management.addresses             | 10.0.0.1,localhost | 'localhost' is not an IP address",
            "outpost.cache.codec                      | brotli | must be zstd, zlib or none, not 'brotli'",
            "outpost.cache.compression-level          | 20    | must be 1 to 19 for zstd",
            "outpost.caching.error-max-age            | 11s   | must be at most 10s",
            "outpost.database.read-pool-size          | 0     | must be at least 1, not 0",
            "outpost.database.write-pool-size         | 0     | must be at least 1, not 0",
            "outpost.rows.max-folder-share            | 1.5   | must be in (0, 1], not 1.5",
            "outpost.rows.too-big-retry               | -1s   | must not be negative",
            "outpost.snapshot.state-max-age           | 301s  | must be between 0 and 300s",
            "outpost.snapshot.gone-max-age            | 11s   | must be at most 10s",
            "outpost.snapshot.min-valid-time          | -1m   | must not be negative",
            "outpost.snapshot.min-valid-lumis         | -1    | must not be negative",
            "outpost.signing.grace                    | 2d    | must be between 0 and 1d",
            "outpost.write.replica-wait               | -1s   | must not be negative",
    })
    void aValueOutOfItsLimitsIsRefusedNamingItsKey(String key, String value, String reason) {
        runner.withPropertyValues(key + "=" + value).run(context -> {
            assertThat(context).hasFailed();
            assertThat(messages(context.getStartupFailure()))
                    .containsPattern(Pattern.quote(key) + ":? " + Pattern.quote(reason));
        });
    }

    @Test
    void theEntriesOfListsAndMapsAreCheckedToo() {
        runner.withPropertyValues("outpost.frontier.contexts.cms.read-pool-size=0").run(context -> assertThat(
                messages(context.getStartupFailure())).contains("outpost.frontier.contexts.<name>.read-pool-size must"
                + " be at least 1, not 0"));
        runner.withPropertyValues("outpost.caching.classes[0].pattern=/DCS/**").run(context -> assertThat(
                messages(context.getStartupFailure())).contains("outpost.caching.classes[N].max-age must be set"));
        runner.withPropertyValues("outpost.caching.classes[0].pattern=/DCS/**", "outpost.caching.classes[0].max-age=10s",
                "outpost.frontier.contexts.cms.url=jdbc:sqlite:cms.db").run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void aKeyFileWithoutItsKeyIdIsRefused() {
        runner.withPropertyValues("outpost.signing.key-file=key.pem").run(context -> assertThat(
                messages(context.getStartupFailure())).contains("outpost.signing.key-id must be set with"
                + " outpost.signing.key-file"));
        runner.withPropertyValues("outpost.signing.key-file=key.pem", "outpost.signing.key-id=site-2026")
                .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void theDefaultsAndTheShippedSettingsPass() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            HttpProperties http = context.getBean(HttpProperties.class);
            assertThat(http.maxConnectionsPerAddress()).isEqualTo(50);
            assertThat(http.unlimitedAddresses()).containsExactly("127.0.0.1", "::1");
            assertThat(http.requestHeadTimeout()).isEqualTo(Duration.ofSeconds(10));
            assertThat(context.getBean(ExportProperties.class).maxConcurrent()).isEqualTo(2);
            OutpostProperties props = context.getBean(OutpostProperties.class);
            assertThat(props.trustedProxies()).isEmpty();
            assertThat(props.management().addresses()).containsExactly("127.0.0.1", "::1");
        });
        runner.withPropertyValues("outpost.http.busy-connections-percent=0", "outpost.http.busy-idle-timeout=0s",
                "outpost.trusted-proxies=192.0.2.10, 192.0.2.0/28", "outpost.cache.codec=none",
                "outpost.cache.compression-level=0").run(context -> {
            assertThat(context).as("the idle timeout is not used when the busy mark is off").hasNotFailed();
            assertThat(context.getBean(OutpostProperties.class).trustedProxies())
                    .containsExactly("192.0.2.10", "192.0.2.0/28");
        });
    }

    /** The real start, stopped by the moved settings before it serves anything. */
    @Test
    void theServiceDoesNotStartWithABadHttpOrExportSetting() {
        assertStartFails("--outpost.http.ipv6-prefix-length=0", "outpost.http.ipv6-prefix-length must be 1 to 128");
        assertStartFails("--outpost.export.max-concurrent=-2", "outpost.export.max-concurrent must be 0 (off) or more");
    }

    private static void assertStartFails(String setting, String message) {
        Path dir = TempDirs.create("outpost-bad-setting");
        try {
            ThrowableAssert.ThrowingCallable start = () -> new SpringApplicationBuilder(OutpostApplication.class).run(
                    "--server.port=0", "--outpost.database.url=jdbc:sqlite:" + dir.resolve("demo.db"),
                    "--spring.profiles.active=test", "--server.tomcat.basedir=" + dir.resolve("tomcat"), setting);
            assertThatThrownBy(start).satisfies(e -> assertThat(messages(e)).contains(message));
        } finally {
            TempDirs.deleteQuietly(dir);
        }
    }

    /** The messages of a failure and its causes, one after the other. */
    private static String messages(Throwable failure) {
        StringBuilder all = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            all.append(t.getMessage()).append('\n');
        }
        return all.toString();
    }
}
