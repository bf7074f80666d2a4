package io.outpost.frontier.sql;

import java.util.Locale;

/** Identifiers as the checks compare them: without their quotes, upper-case. */
final class Identifiers {
    private Identifiers() {
    }

    /** {@code id} without one pair of "", `` or [] quotes. */
    static String strip(String id) {
        if (id != null && id.length() >= 2 && (id.startsWith("\"") && id.endsWith("\"")
                || id.startsWith("`") && id.endsWith("`") || id.startsWith("[") && id.endsWith("]"))) {
            return id.substring(1, id.length() - 1);
        }
        return id;
    }

    /** {@code id} unquoted and upper-cased. */
    static String upper(String id) {
        return strip(id).toUpperCase(Locale.ROOT);
    }
}
