package io.outpost.store.model;

import java.time.DateTimeException;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Validity keys as a person types them, in every input of the loader and the write API: {@code min}, {@code max},
 * {@code RUN/LUMI} (or {@code RUN:LUMI}) for run-lumi folders, ns since 1970 or an ISO date or date-time (UTC unless
 * it has an offset) for time folders, and {@code raw:N} for a key as its stored number in either. A bare number in a
 * run-lumi folder is refused: {@code 320} could mean run 320 or the raw key 320 (run 0, lumi 320). The same grammar
 * as the command-line clients' times (docs/cli.md, "Times").
 */
public final class KeyText {
    private static final Pattern RUN_LUMI = Pattern.compile("(\\d{1,10})[/:](\\d{1,10})");
    private static final Pattern ISO = Pattern.compile(
            "(\\d{4})-(\\d{2})-(\\d{2})(?:T(\\d{2}):(\\d{2})(?::(\\d{2})(?:\\.(\\d{1,9}))?)?(Z|[+-]\\d{2}:\\d{2})?)?");
    private static final String MAX_TEXT = Long.toString(ValidityKey.MAX);
    /** The explicit spelling of a key as its stored number, whatever the folder's key type. */
    public static final String RAW_PREFIX = "raw:";

    private KeyText() {
    }

    /**
     * The key {@code text} spells, for a folder with keys of {@code type} ({@code null}: either kind accepted).
     * Throws {@link IllegalArgumentException} saying what is accepted.
     */
    public static long parse(String text, KeyType type) {
        String s = text.trim();
        if (s.equalsIgnoreCase("min")) {
            return ValidityKey.MIN;
        }
        if (s.equalsIgnoreCase("max")) {
            return ValidityKey.MAX;
        }
        if (s.regionMatches(true, 0, RAW_PREFIX, 0, RAW_PREFIX.length())) {
            String digits = s.substring(RAW_PREFIX.length());
            if (!isDecimal(digits)) {
                throw bad(text, "raw: is followed by the key as a whole number, e.g. raw:1297080123392");
            }
            return decimal(text, digits);
        }
        if (isDecimal(s)) {
            if (type == KeyType.RUN_LUMI) {
                throw bareNumber(text, s);
            }
            return decimal(text, s);
        }
        Matcher rl = RUN_LUMI.matcher(s);
        if (rl.matches()) {
            if (type == KeyType.TIME) {
                throw bad(text, "RUN/LUMI is for run-lumi folders; this folder's keys are times (ns since 1970 UTC or"
                        + " an ISO date/time)");
            }
            long run = Long.parseLong(rl.group(1));
            long lumi = Long.parseLong(rl.group(2));
            if (run > 0x7FFF_FFFFL || lumi > 0xFFFF_FFFFL) {
                throw bad(text, "run must be below 2^31 and lumi below 2^32");
            }
            return ValidityKey.fromRunLumi(run, lumi);
        }
        Matcher m = ISO.matcher(s);
        if (!m.matches()) {
            throw bad(text, "use min, max, " + (type == KeyType.TIME ? ""
                    : "RUN/LUMI (e.g. 305/50), ") + (type == KeyType.RUN_LUMI ? ""
                    : "ns since 1970, an ISO date/time such as 2026-01-01T01:00:00Z, ") + "or raw:N for a raw key");
        }
        if (type == KeyType.RUN_LUMI) {
            throw bad(text, "a date is for time folders; this folder's keys are RUN/LUMI (e.g. 305/50)");
        }
        try {
            LocalDate date = LocalDate.of(num(m, 1), num(m, 2), num(m, 3));
            LocalTime time = m.group(4) == null ? LocalTime.MIDNIGHT
                    : LocalTime.of(num(m, 4), num(m, 5), m.group(6) == null ? 0 : num(m, 6), nanos(m.group(7)));
            String off = m.group(8);
            ZoneOffset offset = off == null || off.equals("Z") ? ZoneOffset.UTC : ZoneOffset.of(off);
            OffsetDateTime t = OffsetDateTime.of(date, time, offset);
            long seconds = t.toInstant().getEpochSecond();
            if (seconds < 0) {
                throw bad(text, "before 1970");
            }
            return Math.addExact(Math.multiplyExact(seconds, 1_000_000_000L), t.toInstant().getNano());
        } catch (DateTimeException e) {
            throw bad(text, "not a valid date/time (" + e.getMessage() + ")");
        } catch (ArithmeticException e) {
            throw bad(text, "after 2262-04-11T23:47:16.854775807Z");
        }
    }

    private static boolean isDecimal(String s) {
        return !s.isEmpty() && s.length() <= 19 && s.chars().allMatch(c -> c >= '0' && c <= '9');
    }

    private static long decimal(String text, String digits) {
        if (digits.length() == 19 && digits.compareTo(MAX_TEXT) > 0) {
            throw bad(text, "over 2^63-1 (use max for the end of time)");
        }
        return Long.parseLong(digits);
    }

    /**
     * Why a bare number is not a run-lumi key, showing how to write what it most likely means: the run (lumi 0),
     * or, for a number too large to be a run, the raw key and the RUN/LUMI it stands for.
     */
    public static IllegalArgumentException bareNumber(String text, String digits) {
        StringBuilder b = new StringBuilder("'" + text + "' is not a run-lumi key: write RUN/LUMI");
        long n = digits.length() == 19 && digits.compareTo(MAX_TEXT) > 0 ? -1 : Long.parseLong(digits);
        if (n >= 0 && n <= 0x7FFF_FFFFL) {
            b.append(", e.g. ").append(n).append("/0 for run ").append(n).append(", lumi 0");
        }
        if (n > 0xFFFF_FFFFL) {
            b.append(" (").append(ValidityKey.run(n)).append('/').append(ValidityKey.lumi(n)).append(" is the raw key ")
                    .append(n).append(')');
        }
        b.append("; a raw key is written ").append(RAW_PREFIX).append(n >= 0 ? Long.toString(n) : "N");
        return new IllegalArgumentException(b.toString());
    }

    /**
     * How a key is written in a URL of the HTTP API, for a refusal of {@code text}: the two forms with an example
     * each, and the number {@code text} stands for when it is a key as a person writes it (a date, RUN/LUMI).
     */
    public static String urlForms(String text) {
        String forms = "keys in URLs are decimal numbers 0 … 9223372036854775807: a time is ns since the epoch"
                + " (2026-01-01T01:00:00Z → 1767229200000000000), a run-lumi key is (RUN << 32) | LUMI"
                + " (302/0 → 1297080123392)";
        try {
            return forms + "; '" + text + "' is " + parse(text, null);
        } catch (IllegalArgumentException notAKey) {
            return forms;
        }
    }

    /** A run-lumi key as {@code RUN/LUMI} ({@code max} for the end of time); other keys in decimal. */
    public static String format(long key, KeyType type) {
        if (type != KeyType.RUN_LUMI) {
            return Long.toString(key);
        }
        return key == ValidityKey.MAX ? "max" : ValidityKey.run(key) + "/" + ValidityKey.lumi(key);
    }

    private static int num(Matcher m, int group) {
        return Integer.parseInt(m.group(group));
    }

    private static int nanos(String fraction) {
        return fraction == null ? 0 : Integer.parseInt((fraction + "00000000").substring(0, 9));
    }

    private static IllegalArgumentException bad(String text, String why) {
        return new IllegalArgumentException("'" + text + "' is not a validity key: " + why);
    }
}
