package io.outpost.server.query;

/** Parses the decimal numbers of a URL: digits only, within 0 … 2^63−1. */
final class Keys {
    private Keys() {
    }

    static long parseNumber(String s, String what) {
        if (s.isEmpty() || s.length() > 19) {
            throw new BadQueryException(what + " '" + s + "' must be a decimal number between 0 and 9223372036854775807");
        }
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) < '0' || s.charAt(i) > '9') {
                throw new BadQueryException(what + " '" + s + "' must be a decimal number between 0 and 9223372036854775807");
            }
        }
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            throw new BadQueryException(what + " '" + s + "' is over the largest key 9223372036854775807");
        }
    }
}
