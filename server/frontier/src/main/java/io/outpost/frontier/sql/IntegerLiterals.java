package io.outpost.frontier.sql;

import java.util.ArrayList;
import java.util.List;

/**
 * A statement's integer literals taken out and put back. COOL asks "valid at time t" with t written into the SQL, so
 * nearly every Frontier statement is new text of a known shape; the SQL checks do not depend on a number's value, so
 * they can run once per shape ({@link CheckedStatements}). Each integer literal becomes a 19-digit sentinel ({@code
 * 917} and its 16-digit index): a digit run replaced by a digit run never moves a token boundary, so the shape parses
 * exactly as the statement does. Strings, quoted identifiers and comments are left alone; digits inside words,
 * decimals and exponents are not integer literals. A statement that already holds a run of 18 digits or more anywhere,
 * even in a string, is not masked at all: {@link #restore} takes every such run for a sentinel.
 */
public final class IntegerLiterals {
    private static final int MAX_DIGITS = 17;
    private static final String PREFIX = "917";
    private static final int SENTINEL_DIGITS = 19;

    /** The statement with its integer literals replaced by sentinels, and the literals in order. */
    record Masked(String shape, List<String> literals) {
    }

    private IntegerLiterals() {
    }

    /** The masked statement, or null when it holds no integer literal or cannot be masked safely. */
    static Masked mask(String sql) {
        if (!hasLongDigitRun(sql)) {
            return maskAll(sql);
        }
        // COOL's nanosecond keys are 19-digit literals: each becomes a sentinel, so only a long run elsewhere (in a
        // string, a name, a comment, a decimal) would be taken for a sentinel when restoring
        return maskAll(sql, true);
    }

    /**
     * The statement with every integer literal replaced, whatever its length (COOL's nanosecond keys have 19 digits),
     * as a key of its shape only: never restored, so look-alikes do not matter. Null when it holds no integer
     * literal or does not lex.
     */
    public static String shapeKey(String sql) {
        Masked m = maskAll(sql);
        return m == null ? null : m.shape();
    }

    private static Masked maskAll(String sql) {
        return maskAll(sql, false);
    }

    /** @param restorable null when a long digit run is left outside the literals (restoring would mistake it) */
    private static Masked maskAll(String sql, boolean restorable) {
        StringBuilder shape = new StringBuilder(sql.length() + 32);
        List<String> literals = new ArrayList<>();
        int n = sql.length();
        int i = 0;
        while (i < n) {
            char c = sql.charAt(i);
            int end;
            if (c == '\'' || c == '"' || c == '`') {
                end = closing(sql, i, c);
            } else if (c == '[') {
                end = sql.indexOf(']', i + 1) + 1;
            } else if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
                end = lineEnd(sql, i);
            } else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
                int close = sql.indexOf("*/", i + 2);
                end = close < 0 ? 0 : close + 2;
            } else if (isWordChar(c) && !isDigit(c)) {
                end = i + 1;
                while (end < n && isWordChar(sql.charAt(end))) {
                    end++;
                }
            } else if (isDigit(c)) {
                end = i + 1;
                while (end < n && isDigit(sql.charAt(end))) {
                    end++;
                }
                boolean plain = (i == 0 || sql.charAt(i - 1) != '.')
                        && (end == n || sql.charAt(end) != '.' && !isWordChar(sql.charAt(end)));
                if (plain) {
                    literals.add(sql.substring(i, end));
                    shape.append(sentinel(literals.size() - 1));
                    i = end;
                    continue;
                }
                while (end < n && (isWordChar(sql.charAt(end)) || sql.charAt(end) == '.')) {
                    end++; // a decimal or exponent: part of the shape, digits and all
                }
            } else {
                end = i + 1;
            }
            if (end <= i) {
                return null; // unterminated string, identifier or comment: the full check reports it
            }
            if (restorable && end - i > MAX_DIGITS && hasLongDigitRun(sql.substring(i, end))) {
                return null;
            }
            shape.append(sql, i, end);
            i = end;
        }
        return literals.isEmpty() ? null : new Masked(shape.toString(), List.copyOf(literals));
    }

    /**
     * The checked shape's SQL with the literals put back, or null if the check did more than carry each sentinel
     * through unchanged (one missing, or another long number in its place): then the statement is checked whole.
     */
    static String restore(String checkedShape, List<String> literals) {
        StringBuilder out = new StringBuilder(checkedShape.length());
        boolean[] seen = new boolean[literals.size()];
        int n = checkedShape.length();
        int i = 0;
        while (i < n) {
            char c = checkedShape.charAt(i);
            if (!isDigit(c) || i > 0 && isWordChar(checkedShape.charAt(i - 1))) {
                out.append(c);
                i++;
                continue;
            }
            int end = i + 1;
            while (end < n && isDigit(checkedShape.charAt(end))) {
                end++;
            }
            if (end - i > MAX_DIGITS) {
                int index = sentinelIndex(checkedShape, i, end);
                if (index < 0 || index >= literals.size()) {
                    return null;
                }
                seen[index] = true;
                out.append(literals.get(index));
            } else {
                out.append(checkedShape, i, end);
            }
            i = end;
        }
        for (boolean s : seen) {
            if (!s) {
                return null;
            }
        }
        return out.toString();
    }

    private static boolean hasLongDigitRun(String s) {
        int run = 0;
        for (int i = 0; i < s.length(); i++) {
            run = isDigit(s.charAt(i)) ? run + 1 : 0;
            if (run > MAX_DIGITS) {
                return true;
            }
        }
        return false;
    }

    private static String sentinel(int index) {
        String digits = Integer.toString(index);
        return PREFIX + "0".repeat(SENTINEL_DIGITS - PREFIX.length() - digits.length()) + digits;
    }

    /** The index of the literal a sentinel's value stands for (a shape's literal, parsed as a number). */
    static int sentinelIndex(long sentinel) {
        String s = Long.toString(sentinel);
        int index = sentinelIndex(s, 0, s.length());
        if (index < 0) {
            throw new IndexOutOfBoundsException("not a sentinel: " + sentinel);
        }
        return index;
    }

    private static int sentinelIndex(String s, int from, int to) {
        if (to - from != SENTINEL_DIGITS || !s.startsWith(PREFIX, from)) {
            return -1;
        }
        long index = Long.parseLong(s, from + PREFIX.length(), to, 10);
        return index > Integer.MAX_VALUE ? -1 : (int) index;
    }

    /** The index after the quote closing the one at {@code open} (doubled quotes stay inside), or 0 if none. */
    private static int closing(String s, int open, char quote) {
        int i = open + 1;
        while (true) {
            int q = s.indexOf(quote, i);
            if (q < 0) {
                return 0;
            }
            if (q + 1 < s.length() && s.charAt(q + 1) == quote) {
                i = q + 2;
                continue;
            }
            return q + 1;
        }
    }

    private static int lineEnd(String s, int from) {
        int nl = s.indexOf('\n', from);
        return nl < 0 ? s.length() : nl + 1;
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private static boolean isWordChar(char c) {
        return Character.isLetterOrDigit(c) || c == '_' || c == '$' || c == '#';
    }
}
