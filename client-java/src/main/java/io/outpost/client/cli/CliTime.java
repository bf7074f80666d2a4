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
 * Times on the command line, exactly as docs/cli.md spells them: a decimal key, min, max, RUN/LUMI or RUN:LUMI, an
 * ISO date or date-time (UTC unless it has an offset). Stricter than {@link Keys#parse} so that the C++ tool,
 * which reads the same grammar, accepts exactly the same arguments.
 */
final class CliTime {
    private static final Pattern RUN_LUMI = Pattern.compile("(\\d{1,10})[/:](\\d{1,10})");
    private static final Pattern ISO = Pattern.compile(
            "(\\d{4})-(\\d{2})-(\\d{2})(?:T(\\d{2}):(\\d{2})(?::(\\d{2})(?:\\.(\\d{1,9}))?)?(Z|[+-]\\d{2}:\\d{2})?)?");

    private CliTime() {
    }

    static long parse(String s) {
        if (s.equals("min")) {
            return 0;
        }
        if (s.equals("max")) {
            return Keys.MAX;
        }
        if (!s.isEmpty() && s.length() <= 19 && s.chars().allMatch(c -> c >= '0' && c <= '9')) {
            if (s.length() == 19 && s.compareTo("9223372036854775807") > 0) {
                throw bad(s, "over 2^63-1");
            }
            return Long.parseLong(s);
        }
        Matcher rl = RUN_LUMI.matcher(s);
        if (rl.matches()) {
            long run = Long.parseLong(rl.group(1));
            long lumi = Long.parseLong(rl.group(2));
            if (run > 0x7FFF_FFFFL || lumi > 0xFFFF_FFFFL) {
                throw bad(s, "run must be below 2^31 and lumi below 2^32");
            }
            return Keys.ofRunLumi(run, lumi);
        }
        Matcher m = ISO.matcher(s);
        if (!m.matches()) {
            throw bad(s, "use ns since 1970 (UTC), min, max, RUN/LUMI, or an ISO date/time such as 2026-01-01T01:00:00Z");
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
