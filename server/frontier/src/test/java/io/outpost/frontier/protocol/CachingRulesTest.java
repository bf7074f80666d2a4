package io.outpost.frontier.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.frontier.protocol.FrontierConfig;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CachingRulesTest {
    @Test
    void hourOfDayCutsToTheNextOccurrence() {
        ZonedDateTime t = ZonedDateTime.of(2025, 3, 1, 10, 30, 0, 0, ZoneOffset.UTC);
        assertThat(CacheTtl.secondsUntilHour(t, 12)).isEqualTo(5400);
        assertThat(CacheTtl.secondsUntilHour(t, 10)).isEqualTo(23 * 3600 + 1800);
        assertThat(CacheTtl.secondsUntilHour(t, 3)).isEqualTo(16 * 3600 + 1800);
    }

    @Test
    void defaultsAndErrorAgeFollowUpstream() {
        FrontierConfig d = FrontierConfig.defaults("X");
        assertThat(d.shortSeconds()).isZero();
        assertThat(d.longSeconds()).isNull();
        assertThat(d.foreverSeconds()).isEqualTo(31536000);
        assertThat(d.errorMaxAge()).isZero();
        assertThat(d.withShort(null, 4).errorMaxAge()).isEqualTo(300);
        assertThat(d.withShort(600L, null).errorMaxAge()).isEqualTo(300);
        assertThat(d.withShort(60L, null).errorMaxAge()).isEqualTo(60);
        FrontierConfig p = FrontierConfig.fromProperties("Ctx", Map.of("ShortCacheExpireSeconds", "120",
                "LongCacheExpireHourOfDay", "4", "MaxThreads", "7", "KeepaliveSeconds", "0.5"));
        assertThat(p.serverName()).isEqualTo("Ctx");
        assertThat(p.shortSeconds()).isEqualTo(120);
        assertThat(p.longHourOfDay()).isEqualTo(4);
        assertThat(p.maxThreads()).isEqualTo(7);
        assertThat(p.keepaliveInterval().toMillis()).isEqualTo(500);
    }

    @Test
    void httpDatesAreRfc1123Gmt() {
        assertThat(CacheHeaders.httpDate(0)).isEqualTo("Thu, 01 Jan 1970 00:00:00 GMT");
        assertThat(CacheHeaders.httpDate(1_700_000_000_000L)).isEqualTo("Tue, 14 Nov 2023 22:13:20 GMT");
        // the last date is remembered by its second: the same second again, then others in turn
        assertThat(CacheHeaders.httpDate(1_700_000_000_999L)).isEqualTo("Tue, 14 Nov 2023 22:13:20 GMT");
        assertThat(CacheHeaders.httpDate(1_700_000_001_000L)).isEqualTo("Tue, 14 Nov 2023 22:13:21 GMT");
        assertThat(CacheHeaders.httpDate(-1)).isEqualTo("Wed, 31 Dec 1969 23:59:59 GMT");
        assertThat(CacheHeaders.httpDate(0)).isEqualTo("Thu, 01 Jan 1970 00:00:00 GMT");
    }
}
