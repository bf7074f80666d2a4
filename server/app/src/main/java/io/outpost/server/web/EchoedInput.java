package io.outpost.server.web;

/**
 * What of a client's input an error answer may echo: its words (a tag name, a path) each up to {@link #MAX_WORD}
 * characters, so that a 5,000-character name is not sent back in full, nor written into every cached error.
 */
public final class EchoedInput {
    private EchoedInput() {
    }

    /** Longest word of a detail echoed in full: a longer one (a 5,000-character tag name) is cut with its length. */
    public static final int MAX_WORD = 128;

    /** {@code detail} with each run of non-blank characters longer than {@link #MAX_WORD} cut short. */
    public static String cap(String detail) {
        if (detail == null || detail.length() <= MAX_WORD) {
            return detail;
        }
        StringBuilder b = new StringBuilder();
        int i = 0;
        while (i < detail.length()) {
            int end = i;
            while (end < detail.length() && !Character.isWhitespace(detail.charAt(end))) {
                end++;
            }
            if (end - i > MAX_WORD) {
                b.append(detail, i, i + MAX_WORD).append("…(").append(end - i).append(" characters)");
            } else {
                b.append(detail, i, end);
            }
            while (end < detail.length() && Character.isWhitespace(detail.charAt(end))) {
                b.append(detail.charAt(end++));
            }
            i = end;
        }
        return b.toString();
    }
}
