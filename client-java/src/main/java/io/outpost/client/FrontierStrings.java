package io.outpost.client;

import java.util.AbstractMap.SimpleImmutableEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The grammar of a Frontier-style configuration string (frontier_config.c): {@code (key=value)} groups, or, in a
 * string without '(', a list of server URLs.
 */
final class FrontierStrings {
    private FrontierStrings() {
    }

    /** The groups in order; text outside parentheses is ignored, values may hold balanced parentheses. */
    static List<Map.Entry<String, String>> parse(String s) {
        List<Map.Entry<String, String>> out = new ArrayList<>();
        int i = 0;
        while (true) {
            int open = s.indexOf('(', i);
            if (open < 0) {
                return out;
            }
            int depth = 0;
            int close = -1;
            for (int j = open; j < s.length(); j++) {
                char c = s.charAt(j);
                if (c == '(') {
                    depth++;
                } else if (c == ')' && --depth == 0) {
                    close = j;
                    break;
                }
            }
            if (close < 0) {
                throw new IllegalArgumentException("unbalanced '(' at " + open
                        + " in the configuration string, expected (key=value) groups: " + s);
            }
            String group = s.substring(open + 1, close);
            int eq = group.indexOf('=');
            if (eq < 0 || group.substring(0, eq).isBlank()) {
                throw new IllegalArgumentException("expected (key=value), got (" + group + ")");
            }
            out.add(new SimpleImmutableEntry<>(group.substring(0, eq).strip(), group.substring(eq + 1).strip()));
            i = close + 1;
        }
    }

    /** Whether a string is a list of server URLs rather than {@code (key=value)} groups. */
    static boolean isList(String s) {
        return s.indexOf('(') < 0;
    }

    /** The items of a list separated by ';', ',' or white space. */
    static List<String> list(String s) {
        List<String> out = new ArrayList<>();
        for (String item : s.split("[;,\\s]+")) {
            if (!item.isEmpty()) {
                out.add(item);
            }
        }
        return out;
    }
}
