package io.outpost.store.db;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Rewrites the store's two simple per-row statement shapes into PostgreSQL set statements over unnested arrays:
 * {@code UPDATE T SET … WHERE …} (every {@code ?} in SET and WHERE) and {@code INSERT INTO T (cols) VALUES (…)
 * [ON CONFLICT …]}. Returns null for anything else, and the caller falls back to a JDBC batch.
 */
final class ArrayRewrite {
    private static final Pattern UPDATE = Pattern.compile("UPDATE (\\S+) SET (.+) WHERE (.+)");
    private static final Pattern INSERT = Pattern.compile("INSERT INTO (\\S+) \\(([^)]+)\\) VALUES \\(([^)]+)\\)(.*)");

    private ArrayRewrite() {
    }

    /**
     * @param constants leading placeholders that stay bind variables (same value for every row)
     * @param params    following placeholders, each becoming one unnested array column
     */
    static String rewrite(String sql, int constants, int params) {
        String unnest = unnest(params);
        Matcher u = UPDATE.matcher(sql);
        if (u.matches()) {
            String table = u.group(1);
            String set = numberParams(u.group(2), 1 - constants);
            int used = count(u.group(2)) - constants;
            String where = numberParams(u.group(3), used + 1).replaceAll("(?<![.\\w])([A-Z_]+) (=|<|>)", table + ".$1 $2");
            return "UPDATE " + table + " SET " + set + " FROM " + unnest + " WHERE " + where;
        }
        Matcher i = INSERT.matcher(sql);
        if (i.matches()) {
            return "INSERT INTO " + i.group(1) + " (" + i.group(2) + ") SELECT " + numberParams(i.group(3), 1 - constants) + " FROM "
                    + unnest + i.group(4);
        }
        return null;
    }

    private static String unnest(int params) {
        StringBuilder arrays = new StringBuilder();
        StringBuilder names = new StringBuilder();
        for (int k = 1; k <= params; k++) {
            arrays.append(k > 1 ? ", " : "").append("?::bigint[]");
            names.append(k > 1 ? ", " : "").append("C").append(k);
        }
        return "unnest(" + arrays + ") AS V(" + names + ")";
    }

    /** Replaces each ? in order by V.Cn, numbering from {@code first}; numbers below 1 stay ? (constants). */
    private static String numberParams(String s, int first) {
        StringBuilder b = new StringBuilder();
        int n = first;
        for (char ch : s.toCharArray()) {
            if (ch == '?') {
                b.append(n < 1 ? "?" : "V.C" + n);
                n++;
            } else {
                b.append(ch);
            }
        }
        return b.toString();
    }

    private static int count(String s) {
        return (int) s.chars().filter(ch -> ch == '?').count();
    }
}
