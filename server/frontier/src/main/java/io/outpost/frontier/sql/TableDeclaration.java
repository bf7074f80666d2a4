package io.outpost.frontier.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The columns and named constraints of a {@code CREATE TABLE} statement, as the store writes them (its migrations,
 * {@code SchemaManager.folderDdl}) and as SQLite keeps them. Read by splitting the parenthesised list at its top-level
 * commas rather than by JSqlParser, which refuses payload column names that are SQL keywords ({@code CURRENT}).
 *
 * @param columns     name and declared type (with its arguments, e.g. {@code VARCHAR(255)}), upper-case
 * @param uniques     UNIQUE constraints: name (null if unnamed) and columns, upper-case
 */
record TableDeclaration(String table, List<String[]> columns, List<Unique> uniques) {
    record Unique(String name, List<String> columns) {
    }

    private static final Pattern CREATE = Pattern.compile("(?is)^\\s*CREATE\\s+TABLE\\s+(?:IF\\s+NOT\\s+EXISTS\\s+)?"
            + "(\\S+?)\\s*\\((.*)\\)[^)]*$");
    private static final Pattern UNIQUE = Pattern.compile("(?is)^(?:CONSTRAINT\\s+(\\S+)\\s+)?UNIQUE\\s*\\((.*)\\)$");
    /** Where a column's declared type ends: its first constraint. */
    private static final Pattern TYPE_END = Pattern.compile(
            "(?i)\\s(NOT|NULL|PRIMARY|UNIQUE|DEFAULT|CHECK|REFERENCES|CONSTRAINT|COLLATE|GENERATED)\\b");

    /** The declaration, or null if {@code ddl} is no CREATE TABLE. */
    static TableDeclaration parse(String ddl) {
        Matcher m = CREATE.matcher(ddl.strip());
        if (!m.matches()) {
            return null;
        }
        List<String[]> columns = new ArrayList<>();
        List<Unique> uniques = new ArrayList<>();
        for (String part : topLevel(m.group(2))) {
            String p = part.strip();
            String head = p.toUpperCase(Locale.ROOT);
            Matcher u = UNIQUE.matcher(p);
            if (u.matches()) {
                uniques.add(new Unique(u.group(1) == null ? null : Identifiers.upper(u.group(1)),
                        topLevel(u.group(2)).stream().map(c -> Identifiers.upper(c.strip())).toList()));
            } else if (!head.startsWith("CONSTRAINT") && !head.startsWith("PRIMARY") && !head.startsWith("FOREIGN")
                    && !head.startsWith("CHECK")) {
                String[] nameAndRest = p.split("\\s+", 2);
                String rest = nameAndRest.length > 1 ? " " + nameAndRest[1] : "";
                Matcher end = TYPE_END.matcher(rest);
                String type = (end.find() ? rest.substring(0, end.start()) : rest).strip();
                columns.add(new String[] {Identifiers.upper(nameAndRest[0]), type.toUpperCase(Locale.ROOT)});
            }
        }
        return new TableDeclaration(Identifiers.upper(m.group(1)), columns, uniques);
    }

    /** {@code list} split at commas outside parentheses and quotes. */
    private static List<String> topLevel(String list) {
        List<String> out = new ArrayList<>();
        int depth = 0;
        char quote = 0;
        int start = 0;
        for (int i = 0; i < list.length(); i++) {
            char ch = list.charAt(i);
            if (quote != 0) {
                quote = ch == quote ? 0 : quote;
            } else if (ch == '"' || ch == '\'' || ch == '`') {
                quote = ch;
            } else if (ch == '(') {
                depth++;
            } else if (ch == ')') {
                depth--;
            } else if (ch == ',' && depth == 0) {
                out.add(list.substring(start, i));
                start = i + 1;
            }
        }
        out.add(list.substring(start));
        return out;
    }
}
