package io.outpost.store.db;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * COOL's insertion-time strings, {@code YYYY-MM-DD_HH:MI:SS.ffffff000 GMT}: fixed width, so string order is
 * time order and "HEAD as of a date" is a string comparison.
 */
public final class SysTime {
    private static final DateTimeFormatter FORMAT =
            DateTimeFormatter.ofPattern("yyyy-MM-dd_HH:mm:ss.SSSSSS'000 GMT'").withZone(ZoneOffset.UTC);

    private SysTime() {
    }

    public static String format(Instant t) {
        return FORMAT.format(t);
    }

    public static String now(Clock clock) {
        return format(clock.instant());
    }

    public static Instant parse(String s) {
        return Instant.from(DateTimeFormatter.ofPattern("yyyy-MM-dd_HH:mm:ss.SSSSSS").withZone(ZoneOffset.UTC)
                .parse(s.substring(0, 26)));
    }
}
