package io.outpost.frontier.sql;

import io.outpost.frontier.FrontierException;

/**
 * A cheap look at a statement before it is parsed: parentheses nested deeper than {@link #MAX_DEPTH} or more than
 * {@link #MAX_TOKENS} tokens are refused at once, with a message that says so, instead of costing a parser thread
 * seconds (JSqlParser 5.4 takes about 0.2 s for 200 nested parentheses, 0.5 s for 400, and overflows its stack or
 * times out beyond 800). Quoted text and comments do not count. COOL's statements nest a few levels and have a few
 * hundred tokens (a long IN list some thousands).
 */
final class StatementSize {
    /** Deepest nesting of parentheses. */
    static final int MAX_DEPTH = 200;
    /** Most words, numbers, quoted texts and punctuation marks in one statement. */
    static final int MAX_TOKENS = 200_000;

    private StatementSize() {
    }

    static void check(String sql) throws FrontierException {
        int depth = 0;
        int tokens = 0;
        int n = sql.length();
        int i = 0;
        while (i < n) {
            char c = sql.charAt(i);
            if (Character.isWhitespace(c)) {
                i++;
                continue;
            }
            if (c == '\'' || c == '"' || c == '`') {
                int close = sql.indexOf(c, i + 1);
                i = close < 0 ? n : close + 1; // a doubled quote inside reads as two texts: the count stays an upper bound
            } else if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
                int nl = sql.indexOf('\n', i);
                i = nl < 0 ? n : nl + 1;
                continue;
            } else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
                int close = sql.indexOf("*/", i + 2);
                i = close < 0 ? n : close + 2;
                continue;
            } else if (Character.isLetterOrDigit(c) || c == '_' || c == '$' || c == '#') {
                while (i < n && (Character.isLetterOrDigit(sql.charAt(i)) || "_$#.".indexOf(sql.charAt(i)) >= 0)) {
                    i++;
                }
            } else {
                if (c == '(' && ++depth > MAX_DEPTH) {
                    throw new FrontierException("SQL rejected: parentheses nested deeper than " + MAX_DEPTH + " levels");
                }
                if (c == ')') {
                    depth--;
                }
                i++;
            }
            if (++tokens > MAX_TOKENS) {
                throw new FrontierException("SQL rejected: statement longer than " + MAX_TOKENS + " tokens");
            }
        }
    }
}
