package io.outpost.store.model;

import java.time.DateTimeException;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Validity keys as a person types them, in every input of the loader and the write API: a decimal key, {@code min},
 * {@code max}, {@code RUN/LUMI} (or {@code RUN:LUMI}) for run-lumi folders, an ISO date or date-time (UTC unless
 * it has an offset) for time folders. The same grammar as the command-line clients' times (docs/cli.md, "Times").
 */
public final class KeyText {
    private static final Pattern RUN_LUMI = Pattern.compile("(\\d{1,10})[/:](\\d{1,10})");
    private static final Pattern ISO = Pattern.compile(
            "(\\d{4})-(\\d{2})-(\\d{2})(?:T(\\d{2}):(\\d{2})(?::(\\d{2})(?:\\.(\\d{1,9}))?)?(Z|[+-]\\d{2}:\\d{2})?)?");
    private static final String MAX_TEXT = Long.toString(ValidityKey.MAX);

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
        if (!s.isEmpty() && s.length() <= 19 && s.chars().allMatch(c -> c >= '0' && c <= '9')) {
            if (s.length() == 19 && s.compareTo(MAX_TEXT) > 0) {
                throw bad(text, "over 2^63-1 (use max for the end of time)");
            }
            return Long.parseLong(s);
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
            throw bad(text, "use a whole number, min, max, " + (type == KeyType.TIME ? ""
                    : "RUN/LUMI (e.g. 305/50)" + (type == null ? ", " : "")) + (type == KeyType.RUN_LUMI ? ""
                    : "or an ISO date/time such as 2026-01-01T01:00:00Z"));
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
