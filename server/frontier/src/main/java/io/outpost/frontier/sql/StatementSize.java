package io.outpost.frontier.sql;

import io.outpost.frontier.protocol.FrontierException;

/**
 * A cheap look at a statement before it is parsed: parentheses nested deeper than {@link #MAX_DEPTH} or more than
 * {@link #MAX_TOKENS} tokens are refused at once, with a message that says so, instead of costing a parser thread
 * seconds (JSqlParser 5.4 takes about 0.2 s for 200 nested parentheses, 0.5 s for 400, and overflows its stack or
 * times out beyond 800). Quoted text and comments do not count. COOL's statements nest a few levels and have a few
 * hundred tokens (a long IN list some thousands).
 * <p>
 * Operators chain too: JSqlParser builds {@code NOT NOT … x}, {@code 1+1+…} and {@code a OR b OR …} as trees as deep
 * as the chain is long, and it and the walks over its tree recurse once per level, overflowing a thread's stack
 * between 2,000 and 4,000 levels (JSqlParser 5.4, 1 MB stacks, 2026-11-28). So the operators of the expressions open
 * at each point (counted since the last comma or opening parenthesis of each enclosing level) may be at most
 * {@link #MAX_CHAINED_OPERATORS}; an IN list, whose items are separated by commas, does not chain.
 */
final class StatementSize {
    /** Deepest nesting of parentheses. */
    static final int MAX_DEPTH = 200;
    /** Most words, numbers, quoted texts and punctuation marks in one statement. */
    static final int MAX_TOKENS = 200_000;
    /** Most operators chained into one expression, over all enclosing levels (a quarter of what overflowed). */
    static final int MAX_CHAINED_OPERATORS = 500;
    /** The operator words; symbols other than parentheses, commas and quotes count as operators too. */
    private static final java.util.Set<String> OPERATOR_WORDS = java.util.Set.of("AND", "OR", "NOT", "XOR");

    private StatementSize() {
    }

    static void check(String sql) throws FrontierException {
        int depth = 0;
        int tokens = 0;
        // operators since the last comma or opening parenthesis, per open level, and their sum
        int[] chained = new int[MAX_DEPTH + 2];
        int chainedTotal = 0;
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
                int start = i;
                while (i < n && (Character.isLetterOrDigit(sql.charAt(i)) || "_$#.".indexOf(sql.charAt(i)) >= 0)) {
                    i++;
                }
                if (i - start <= 3 && OPERATOR_WORDS.contains(sql.substring(start, i).toUpperCase(java.util.Locale.ROOT))) {
                    chainedTotal = chain(chained, depth, chainedTotal);
                }
            } else {
                if (c == '(' && ++depth > MAX_DEPTH) {
                    throw new FrontierException("SQL rejected: parentheses nested deeper than " + MAX_DEPTH + " levels");
                }
                if (c == '(' || c == ',') {
                    chainedTotal -= chained[depth];
                    chained[depth] = 0;
                } else if (c == ')') {
                    if (depth > 0) {
                        chainedTotal -= chained[depth];
                        chained[depth] = 0;
                    }
                    depth = Math.max(depth - 1, 0);
                } else {
                    chainedTotal = chain(chained, depth, chainedTotal);
                }
                i++;
            }
            if (++tokens > MAX_TOKENS) {
                throw new FrontierException("SQL rejected: statement longer than " + MAX_TOKENS + " tokens");
            }
        }
    }

    /** One more operator at {@code depth}: the new sum, or a refusal once it is over the limit. */
    private static int chain(int[] chained, int depth, int total) throws FrontierException {
        chained[depth]++;
        if (++total > MAX_CHAINED_OPERATORS) {
            throw new FrontierException("SQL rejected: more than " + MAX_CHAINED_OPERATORS
                    + " operators chained in one expression (NOT, AND, OR, +, - ...); split it or use an IN list");
        }
        return total;
    }
}
