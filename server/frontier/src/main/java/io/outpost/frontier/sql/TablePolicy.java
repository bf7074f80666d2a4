package io.outpost.frontier.sql;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Which tables (and, optionally, which of their columns) a Frontier context's SQL may read. A context takes it from
 * its configuration ({@link #fromProperties}): a built-in profile ({@code cool}, the default, or {@code cms-conddb-v2})
 * or its own table patterns and column lists. Table names are compared upper-case and unqualified.
 */
public final class TablePolicy {
    /** COOL's tables: the global ones and those of each folder (docs/schema.md). */
    private static final String COOL_TABLES = "{prefix}(NODES|TAGS|TAG2TAG|NODES_SEQ|TAGS_SEQ|DB_ATTRIBUTES),"
            + "{prefix}F[0-9]{4}_(IOVS|CHANNELS|IOVS_SEQ|IOV2TAG|PAYLOAD)";
    /** CMS conditions (CondDB v2, cms-sw CondCore/CondDB GTSchema.h and IOVSchema.h): what reading jobs use. */
    private static final String CMS_TABLES = "GLOBAL_TAG,GLOBAL_TAG_MAP,TAG,IOV,PAYLOAD";
    private static final String CMS_COLUMNS = "GLOBAL_TAG.NAME,GLOBAL_TAG.VALIDITY,GLOBAL_TAG.DESCRIPTION,"
            + "GLOBAL_TAG.RELEASE,GLOBAL_TAG.SNAPSHOT_TIME,GLOBAL_TAG.INSERTION_TIME,"
            + "GLOBAL_TAG_MAP.GLOBAL_TAG_NAME,GLOBAL_TAG_MAP.RECORD,GLOBAL_TAG_MAP.LABEL,GLOBAL_TAG_MAP.TAG_NAME,"
            + "TAG.NAME,TAG.TIME_TYPE,TAG.OBJECT_TYPE,TAG.SYNCHRONIZATION,TAG.END_OF_VALIDITY,TAG.DESCRIPTION,"
            + "TAG.LAST_VALIDATED_TIME,TAG.INSERTION_TIME,TAG.MODIFICATION_TIME,"
            + "IOV.TAG_NAME,IOV.SINCE,IOV.PAYLOAD_HASH,IOV.INSERTION_TIME,"
            + "PAYLOAD.HASH,PAYLOAD.OBJECT_TYPE,PAYLOAD.DATA,PAYLOAD.STREAMER_INFO,PAYLOAD.VERSION,PAYLOAD.INSERTION_TIME";

    private final String description;
    private final List<Pattern> tables;
    /** Upper-case table name -> its allowed columns; a table without an entry may be read whole. */
    private final Map<String, Set<String>> columns;

    private TablePolicy(String description, List<Pattern> tables, Map<String, Set<String>> columns) {
        this.description = description;
        this.tables = List.copyOf(tables);
        this.columns = Map.copyOf(columns);
    }

    /** COOL's tables with this table prefix, every column: the default of every context. */
    public static TablePolicy cool(String prefix) {
        return of("cool", COOL_TABLES, null, prefix);
    }

    /** The CMS CondDB v2 tables a conditions job reads, with their columns. */
    public static TablePolicy cmsCondDbV2() {
        return of("cms-conddb-v2", CMS_TABLES, CMS_COLUMNS, "");
    }

    /**
     * A policy from its text form.
     *
     * @param tablePatterns comma-separated regular expressions, each matched against the whole upper-case table name,
     *                      case-insensitively; {@code {prefix}} stands for the context's table prefix
     * @param columnList    comma-separated {@code TABLE.COLUMN} entries (null or blank: every column of every table);
     *                      a table named here may be read only through the listed columns, {@code TABLE.*} allows all
     */
    public static TablePolicy of(String description, String tablePatterns, String columnList, String prefix) {
        if (tablePatterns == null || tablePatterns.isBlank()) {
            throw new IllegalArgumentException("a Frontier context needs at least one allowed table pattern");
        }
        List<Pattern> ps = new ArrayList<>();
        String quotedPrefix = Pattern.quote(prefix == null ? "" : prefix.toUpperCase(Locale.ROOT));
        for (String p : tablePatterns.split(",")) {
            String t = p.strip();
            if (t.isEmpty()) {
                continue;
            }
            try {
                ps.add(Pattern.compile(t.replace("{prefix}", quotedPrefix), Pattern.CASE_INSENSITIVE));
            } catch (PatternSyntaxException e) {
                throw new IllegalArgumentException("bad table pattern '" + t + "': " + e.getDescription());
            }
        }
        if (ps.isEmpty()) {
            throw new IllegalArgumentException("a Frontier context needs at least one allowed table pattern");
        }
        Map<String, Set<String>> cols = new LinkedHashMap<>();
        if (columnList != null && !columnList.isBlank()) {
            for (String entry : columnList.split(",")) {
                String e = entry.strip().toUpperCase(Locale.ROOT);
                if (e.isEmpty()) {
                    continue;
                }
                int dot = e.indexOf('.');
                if (dot <= 0 || dot == e.length() - 1 || e.indexOf('.', dot + 1) >= 0) {
                    throw new IllegalArgumentException("bad column entry '" + entry.strip() + "': use TABLE.COLUMN");
                }
                cols.computeIfAbsent(e.substring(0, dot), k -> new LinkedHashSet<>()).add(e.substring(dot + 1));
            }
        }
        cols.values().removeIf(s -> s.contains("*"));
        return new TablePolicy(description, ps, cols);
    }

    /**
     * The policy a context's settings ask for: {@code Profile} ({@code cool}, the default, or {@code cms-conddb-v2}),
     * or {@code Tables} (patterns) with optional {@code Columns}, which replace the profile's.
     */
    public static TablePolicy fromProperties(Map<String, String> p, String prefix) {
        String profile = p.getOrDefault("Profile", "cool").strip();
        TablePolicy base = switch (profile.toLowerCase(Locale.ROOT)) {
            case "cool" -> cool(prefix);
            case "cms-conddb-v2", "cms" -> cmsCondDbV2();
            default -> throw new IllegalArgumentException("unknown Frontier Profile '" + profile
                    + "' (cool or cms-conddb-v2)");
        };
        String t = p.get("Tables");
        String c = p.get("Columns");
        if (t == null && c == null) {
            return base;
        }
        if (t == null) {
            throw new IllegalArgumentException("Columns needs Tables in the same Frontier context");
        }
        return of("custom", t, c, prefix);
    }

    /** True if a statement may read this table (upper-case, unqualified). */
    public boolean allowsTable(String upperName) {
        for (Pattern p : tables) {
            if (p.matcher(upperName).matches()) {
                return true;
            }
        }
        return false;
    }

    /** The allowed columns of a table, or null if every column may be read. */
    public Set<String> columnsOf(String upperTable) {
        return columns.get(upperTable);
    }

    /** True if some table has a column list. */
    public boolean restrictsColumns() {
        return !columns.isEmpty();
    }

    @Override
    public String toString() {
        return description + " " + tables + (columns.isEmpty() ? "" : " columns " + columns);
    }
}
