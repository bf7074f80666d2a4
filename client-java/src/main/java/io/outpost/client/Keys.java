package io.outpost.client;

import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;

/**
 * IOV keys: time folders use ns since the Unix epoch (UTC), run-lumi folders {@code (run << 32) | lumiblock}
 * (docs/cool-model, ATLAS {@code iovTimeFromRunLumi}). All keys are 0 .. 2^63-1.
 */
public final class Keys {
    /** The largest key, "infinity" in COOL. */
    public static final long MAX = Long.MAX_VALUE;

    private Keys() {
    }

    public static long ofInstant(Instant t) {
        long k = Math.addExact(Math.multiplyExact(t.getEpochSecond(), 1_000_000_000L), t.getNano());
        if (k < 0) {
            throw new IllegalArgumentException("time before 1970: " + t);
        }
        return k;
    }

    public static Instant toInstant(long key) {
        return Instant.ofEpochSecond(Math.floorDiv(key, 1_000_000_000L), Math.floorMod(key, 1_000_000_000L));
    }

    public static long ofRunLumi(long run, long lumi) {
        if (run < 0 || run > 0x7FFF_FFFFL || lumi < 0 || lumi > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("run/lumi out of range: " + run + "/" + lumi);
        }
        return (run << 32) | lumi;
    }

    public static long run(long key) {
        return key >>> 32;
    }

    public static long lumi(long key) {
        return key & 0xFFFF_FFFFL;
    }

    /**
     * Parses a key as a user types it: a decimal key ({@code 1767229200000000000}), {@code max}, a run/lumi pair
     * ({@code 284500/12}), or an ISO-8601 date or date-time taken as UTC unless it has an offset
     * ({@code 2026-01-01}, {@code 2026-01-01T01:00:00}, {@code 2026-01-01T01:00:00.5Z}, {@code ...+02:00}).
     */
    public static long parse(String text) {
        String s = text.strip();
        if (s.equalsIgnoreCase("max") || s.equalsIgnoreCase("inf")) {
            return MAX;
        }
        if (!s.isEmpty() && s.chars().allMatch(Character::isDigit)) {
            try {
                return Long.parseLong(s);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("key over 2^63-1: " + s);
            }
        }
        int slash = s.indexOf('/');
        if (slash > 0) {
            try {
                return ofRunLumi(Long.parseLong(s.substring(0, slash)), Long.parseLong(s.substring(slash + 1)));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("bad run/lumi '" + s + "': use RUN/LUMI, e.g. 284500/12");
            }
        }
        try {
            if (s.length() == 10) {
                return ofInstant(LocalDate.parse(s).atStartOfDay().toInstant(ZoneOffset.UTC));
            }
            if (s.endsWith("Z") || s.matches(".*[+-]\\d\\d:\\d\\d$")) {
                return ofInstant(OffsetDateTime.parse(s).toInstant());
            }
            return ofInstant(LocalDateTime.parse(s).toInstant(ZoneOffset.UTC));
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("bad key '" + s
                    + "': use ns since 1970 (UTC), an ISO date/time such as 2026-01-01T01:00:00Z, RUN/LUMI, or max");
        }
    }
}
