package io.outpost.client.cli;

import io.outpost.client.Keys;
import java.time.DateTimeException;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Times on the command line, exactly as docs/cli.md spells them: min, max, {@code raw:N}, a decimal number, RUN/LUMI
 * or RUN:LUMI, an ISO date or date-time (UTC unless it has an offset). Stricter than {@link Keys#parse} so that the
 * C++ and Python tools, which read the same grammar, accept exactly the same arguments. A key is parsed first
 * ({@link #parse}), then checked against the key type of the folder it is read in ({@link Key#in}): a bare number
 * is no run-lumi key (320 could be run 320 or the raw key 320), a date no run-lumi key, RUN/LUMI no time.
 */
final class CliTime {
    /** How a key was written: the forms that fit either key type, or only one. */
    enum Form { ANY, NUMBER, RUN_LUMI, DATE }

    /** A key as typed: its text, its value and its form. */
    record Key(String text, long value, Form form) {
        /** The key, read in a folder of the given key type; a form that does not fit it is a usage error. */
        long in(boolean runLumi) {
            if (runLumi && form == Form.NUMBER) {
                throw bareNumber(text, value);
            }
            if (runLumi && form == Form.DATE) {
                throw new IllegalArgumentException("'" + text + "' is a date, not a run-lumi key: write RUN/LUMI,"
                        + " e.g. 305/50");
            }
            if (!runLumi && form == Form.RUN_LUMI) {
                throw new IllegalArgumentException("'" + text + "' is RUN/LUMI, not a time: write ns since 1970 or"
                        + " an ISO date/time, e.g. 2026-01-01T01:00:00Z");
            }
            return value;
        }

        /** Whether the key means the same in folders of both key types (min, max, raw:N). */
        boolean fitsEither() {
            return form == Form.ANY;
        }
    }

    /** As the loader and the write API say it (the service's KeyText): the likeliest meaning spelled out. */
    static IllegalArgumentException bareNumber(String text, long n) {
        StringBuilder b = new StringBuilder("'" + text + "' is not a run-lumi key: write RUN/LUMI");
        if (n <= 0x7FFF_FFFFL) {
            b.append(", e.g. ").append(n).append("/0 for run ").append(n).append(", lumi 0");
        }
        if (n > 0xFFFF_FFFFL) {
            b.append(" (").append(n >>> 32).append('/').append(n & 0xFFFF_FFFFL).append(" is the raw key ").append(n)
                    .append(')');
        }
        return new IllegalArgumentException(b.append("; a raw key is written raw:").append(n).toString());
    }

    /** The key's value whatever the folder (for tests and where the form does not matter). */
    static long parse(String s) {
        return key(s).value();
    }
    private static final Pattern RUN_LUMI = Pattern.compile("(\\d{1,10})[/:](\\d{1,10})");
    private static final Pattern ISO = Pattern.compile(
            "(\\d{4})-(\\d{2})-(\\d{2})(?:T(\\d{2}):(\\d{2})(?::(\\d{2})(?:\\.(\\d{1,9}))?)?(Z|[+-]\\d{2}:\\d{2})?)?");

    private CliTime() {
    }

    /** A key as typed; a text that is no key in any folder is a usage error. */
    static Key key(String s) {
        if (s.equals("min")) {
            return new Key(s, 0, Form.ANY);
        }
        if (s.equals("max")) {
            return new Key(s, Keys.MAX, Form.ANY);
        }
        if (s.startsWith("raw:")) {
            if (!isDecimal(s.substring(4))) {
                throw bad(s, "raw: is followed by the key as a whole number, e.g. raw:1297080123392");
            }
            return new Key(s, decimal(s, s.substring(4)), Form.ANY);
        }
        if (isDecimal(s)) {
            return new Key(s, decimal(s, s), Form.NUMBER);
        }
        Matcher rl = RUN_LUMI.matcher(s);
        if (rl.matches()) {
            long run = Long.parseLong(rl.group(1));
            long lumi = Long.parseLong(rl.group(2));
            if (run > 0x7FFF_FFFFL || lumi > 0xFFFF_FFFFL) {
                throw bad(s, "run must be below 2^31 and lumi below 2^32");
            }
            return new Key(s, Keys.ofRunLumi(run, lumi), Form.RUN_LUMI);
        }
        return new Key(s, date(s), Form.DATE);
    }

    private static boolean isDecimal(String s) {
        return !s.isEmpty() && s.length() <= 19 && s.chars().allMatch(c -> c >= '0' && c <= '9');
    }

    private static long decimal(String text, String digits) {
        if (digits.length() == 19 && digits.compareTo("9223372036854775807") > 0) {
            throw bad(text, "over 2^63-1");
        }
        return Long.parseLong(digits);
    }

    private static long date(String s) {
        Matcher m = ISO.matcher(s);
        if (!m.matches()) {
            throw bad(s, "use min, max, RUN/LUMI, ns since 1970 (UTC), an ISO date/time such as"
                    + " 2026-01-01T01:00:00Z, or raw:N for a raw key");
        }
        try {
            LocalDate date = LocalDate.of(num(m, 1), num(m, 2), num(m, 3));
            LocalTime time = m.group(4) == null ? LocalTime.MIDNIGHT
                    : LocalTime.of(num(m, 4), num(m, 5), m.group(6) == null ? 0 : num(m, 6), nanos(m.group(7)));
            String off = m.group(8);
            ZoneOffset offset = off == null || off.equals("Z") ? ZoneOffset.UTC : ZoneOffset.of(off);
            OffsetDateTime t = OffsetDateTime.of(date, time, offset);
            if (t.toInstant().getEpochSecond() < 0) {
                throw bad(s, "before 1970");
            }
            return Keys.ofInstant(t.toInstant());
        } catch (DateTimeException e) {
            throw bad(s, "not a valid date/time (" + e.getMessage() + ")");
        } catch (ArithmeticException e) {
            throw bad(s, "after 2262-04-11T23:47:16.854775807Z");
        }
    }

    private static int num(Matcher m, int group) {
        return Integer.parseInt(m.group(group));
    }

    private static int nanos(String fraction) {
        if (fraction == null) {
            return 0;
        }
        return Integer.parseInt((fraction + "00000000").substring(0, 9));
    }

    private static IllegalArgumentException bad(String s, String why) {
        return new IllegalArgumentException("bad time '" + s + "': " + why);
    }
}
