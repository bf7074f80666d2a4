package io.outpost.server.query;

import io.outpost.store.model.KeyText;

/** Parses the decimal numbers of a URL: digits only, within 0 … 2^63−1; a refusal says how keys are written. */
final class Keys {
    private Keys() {
    }

    static long parseNumber(String s, String what) {
        boolean digits = !s.isEmpty() && s.length() <= 19 && s.chars().allMatch(c -> c >= '0' && c <= '9');
        if (!digits) {
            throw new BadQueryException(what + " '" + abbreviate(s) + "' " + (what.contains("key")
                    ? "is not a key: " + KeyText.urlForms(s) : "must be a decimal number between 0 and "
                    + "9223372036854775807"));
        }
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            throw new BadQueryException(what + " '" + s + "' is over the largest key 9223372036854775807");
        }
    }

    static String abbreviate(String s) {
        return s.length() > 64 ? s.substring(0, 64) + "…" : s;
    }
}
