package io.outpost.frontier.sql;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Frontier's bind values (always text) on MariaDB. MariaDB compares an integer column with a string as two doubles,
 * which cannot tell COOL's 19-digit nanosecond keys apart, so a value written as an integer is bound as an integer
 * (an exact comparison, on the key's index); anything else is bound as a string. The price: a text column compared
 * with a bind that looks like an integer is compared as a number (docs/frontier.md).
 */
public final class MariaDbBinds {
    /** An integer as written by a program: no sign but minus, no leading zero (those are kept as text). */
    private static final Pattern INTEGER = Pattern.compile("-?(0|[1-9][0-9]{0,18})");

    private MariaDbBinds() {
    }

    /** Sets {@code binds} as parameters 1… of {@code ps}. */
    public static void set(PreparedStatement ps, List<String> binds) throws SQLException {
        for (int i = 0; i < binds.size(); i++) {
            String v = binds.get(i);
            Long n = v != null && INTEGER.matcher(v).matches() ? asLong(v) : null;
            if (n != null) {
                ps.setLong(i + 1, n);
            } else {
                ps.setString(i + 1, v);
            }
        }
    }

    private static Long asLong(String digits) {
        try {
            return Long.parseLong(digits);
        } catch (NumberFormatException e) {
            return null; // beyond 64 bits: compared as text
        }
    }
}
