package io.outpost.frontier.protocol;

import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;

/** The time-to-live class a request asks for with {@code ttl=}, and the max-age it gets (upstream's rule). */
public enum CacheTtl {
    SHORT, LONG, FOREVER;

    /**
     * The class of a request after one more payload's {@code ttl} parameter: {@code short} and {@code forever}
     * replace the class so far, anything else (or none) leaves it, so the last of them wins.
     */
    public CacheTtl with(String ttlParameter) {
        if ("short".equals(ttlParameter)) {
            return SHORT;
        }
        return "forever".equals(ttlParameter) ? FOREVER : this;
    }

    /**
     * The configured seconds of this class (the SQL plugin's week when unset), cut at the next configured hour of day
     * for short and long.
     */
    public long maxAgeSeconds(FrontierConfig config, ZonedDateTime now) {
        Long configured = switch (this) {
            case SHORT -> config.shortSeconds();
            case LONG -> config.longSeconds();
            case FOREVER -> config.foreverSeconds();
        };
        long maxAge = configured != null ? configured : FrontierConfig.PAYLOAD_EXPIRE_SECONDS;
        Integer hour = switch (this) {
            case SHORT -> config.shortHourOfDay();
            case LONG -> config.longHourOfDay();
            case FOREVER -> null;
        };
        return hour == null ? maxAge : Math.min(maxAge, secondsUntilHour(now, hour));
    }

    /** Seconds from {@code now} to the next start of local hour {@code hour} (tomorrow if already past). */
    static long secondsUntilHour(ZonedDateTime now, int hour) {
        ZonedDateTime next = now.truncatedTo(ChronoUnit.HOURS).withHour(hour);
        if (hour <= now.getHour()) {
            next = next.plusDays(1);
        }
        return Math.max(0, ChronoUnit.SECONDS.between(now, next));
    }
}
