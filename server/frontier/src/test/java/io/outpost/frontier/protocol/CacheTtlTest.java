package io.outpost.frontier.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.frontier.protocol.FrontierConfig;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import org.junit.jupiter.api.Test;

/** The TTL class of a request (the last short or forever wins) and the max-age each class gets. */
class CacheTtlTest {
    private static final ZonedDateTime NOON_MINUS_90_MIN = ZonedDateTime.of(2025, 3, 1, 10, 30, 0, 0, ZoneOffset.UTC);

    @Test
    void shortAndForeverReplaceTheClassAnythingElseLeavesIt() {
        assertThat(CacheTtl.LONG.with(null)).isEqualTo(CacheTtl.LONG);
        assertThat(CacheTtl.LONG.with("short")).isEqualTo(CacheTtl.SHORT);
        assertThat(CacheTtl.SHORT.with("long")).isEqualTo(CacheTtl.SHORT);
        assertThat(CacheTtl.SHORT.with("forever")).isEqualTo(CacheTtl.FOREVER);
        assertThat(CacheTtl.FOREVER.with("short")).isEqualTo(CacheTtl.SHORT);
    }

    @Test
    void maxAgeIsTheConfiguredSecondsCutAtTheConfiguredHour() {
        FrontierConfig d = FrontierConfig.defaults("X");
        assertThat(CacheTtl.SHORT.maxAgeSeconds(d, NOON_MINUS_90_MIN)).isZero();
        assertThat(CacheTtl.LONG.maxAgeSeconds(d, NOON_MINUS_90_MIN)).isEqualTo(FrontierConfig.PAYLOAD_EXPIRE_SECONDS);
        assertThat(CacheTtl.FOREVER.maxAgeSeconds(d, NOON_MINUS_90_MIN)).isEqualTo(365L * 24 * 3600);
        FrontierConfig hours = d.withShort(null, 12).withLong(3600L, 11);
        assertThat(CacheTtl.SHORT.maxAgeSeconds(hours, NOON_MINUS_90_MIN)).isEqualTo(5400);
        assertThat(CacheTtl.LONG.maxAgeSeconds(hours, NOON_MINUS_90_MIN)).isEqualTo(1800);
    }
}
