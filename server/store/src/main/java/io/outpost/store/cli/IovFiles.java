package io.outpost.store.cli;

import io.outpost.store.model.Channel;
import io.outpost.store.model.KeyText;
import io.outpost.store.model.KeyType;
import io.outpost.store.model.NewIov;
import io.outpost.store.model.PayloadSpec;
import io.outpost.store.model.StorageType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Reads IOVs to load. CSV: a header line naming the columns channel, since, until and the folder's fields in any
 * order, then one IOV per line, with {@code max} for an open end, blobs in base64, empty = NULL (quotes allowed
 * around strings). JSON: an array of {@code {"channel":1,"since":0,"until":"max","payload":{"field":value,…}}}.
 * Every row is checked here, so that a refusal names the file and the line: keys ({@link KeyText}), channel ids,
 * payload values (a Double is finite and as written: no NaN, no infinity, no literal that overflows), and the same
 * IOV (channel, since, until) twice in one file.
 */
public final class IovFiles {
    private static final List<String> KEY_COLUMNS = List.of("channel", "since", "until");
    /** A decimal number as a person writes it; Java's own parser also takes NaN, Infinity, hex and 1.5f. */
    private static final java.util.regex.Pattern DECIMAL = java.util.regex.Pattern.compile(
            "[+-]?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?");
    /** Big decimals for JSON numbers, so that a literal overflowing a Double is seen, not read as infinity. */
    private static final JsonMapper FILE_JSON = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .disable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).build();

    private IovFiles() {
    }

    /** The IOVs of one file and, for each, the line it was written on (to name it in a later refusal). */
    public record Rows(List<NewIov> iovs, String source, int[] lines) {
        public String place(int index) {
            return source + " line " + lines[index];
        }
    }

    static Rows read(Path file, PayloadSpec spec, KeyType keys) throws IOException {
        String name = file.getFileName().toString().toLowerCase(java.util.Locale.ROOT);
        if (name.endsWith(".json")) {
            return jsonFile(file, spec, keys);
        }
        if (name.endsWith(".csv")) {
            return csvRows(Files.readAllLines(file), file.toString(), spec, keys);
        }
        throw new IllegalArgumentException("file must end in .csv or .json: " + file);
    }

    private static long channel(String s) {
        long id;
        try {
            id = Long.parseLong(s.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("channel '" + s + "' is not a whole number", e);
        }
        return checkChannel(id);
    }

    private static long checkChannel(long id) {
        if (id < 0 || id > Channel.MAX_ID) {
            throw new IllegalArgumentException("channel " + id + " is not between 0 and " + Channel.MAX_ID);
        }
        return id;
    }

    /**
     * IOVs from the lines of a CSV text; {@code source} names it in errors. The first line names the columns, in any
     * order: channel, since, until and every payload field of the folder, each once; an unknown, missing or repeated
     * name refuses the whole text, so that no value lands in the wrong field. Keys as {@link KeyText} spells them.
     * Shared by the loader and the service's write API, so both accept exactly the same files.
     */
    public static List<NewIov> csv(List<String> lines, String source, PayloadSpec spec, KeyType keys) {
        return csvRows(lines, source, spec, keys).iovs();
    }

    static Rows csvRows(List<String> lines, String source, PayloadSpec spec, KeyType keys) {
        int headerLine = 0;
        while (headerLine < lines.size() && lines.get(headerLine).isBlank()) {
            headerLine++;
        }
        if (headerLine == lines.size()) {
            throw new IllegalArgumentException(source + ": empty; the first line names the columns, e.g. "
                    + expectedHeader(spec));
        }
        String headerWhere = source + " line " + (headerLine + 1);
        int[] position = columnPositions(lines.get(headerLine), headerWhere, spec);
        Duplicates seen = new Duplicates(source + " line ");
        List<NewIov> out = new ArrayList<>();
        int[] numbers = new int[lines.size()];
        for (int n = headerLine + 1; n < lines.size(); n++) {
            String line = lines.get(n);
            if (line.isBlank()) {
                continue;
            }
            String where = source + " line " + (n + 1);
            try {
                List<String> cells = splitCsv(line);
                if (cells.size() != 3 + spec.size()) {
                    throw new IllegalArgumentException("expected " + (3 + spec.size())
                            + " columns as the header names them, got " + cells.size());
                }
                Object[] payload = new Object[spec.size()];
                for (int i = 0; i < spec.size(); i++) {
                    int column = position[3 + i];
                    String cell = cells.get(column);
                    try {
                        payload[i] = parse(cell, spec.field(i).type());
                    } catch (IllegalArgumentException e) {
                        throw new IllegalArgumentException("column " + (column + 1) + ", field '" + spec.field(i).name()
                                + "': '" + cell + "' is not a valid " + spec.field(i).type().coolName() + ": "
                                + e.getMessage(), e);
                    }
                }
                String sinceText = cells.get(position[1]);
                String untilText = cells.get(position[2]);
                long since = KeyText.parse(sinceText, keys);
                long until = KeyText.parse(untilText, keys);
                checkInterval(since, until, keys);
                NewIov iov = new NewIov(channel(cells.get(position[0])), since, until, checkPayload(spec, payload));
                seen.add(iov, n + 1, sinceText.trim(), untilText.trim());
                numbers[out.size()] = n + 1;
                out.add(iov);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
            }
        }
        return new Rows(out, source, java.util.Arrays.copyOf(numbers, out.size()));
    }

    /** Values the store would refuse, refused here so that the file and line are named. */
    private static Object[] checkPayload(PayloadSpec spec, Object[] payload) {
        spec.coerce(payload);
        return payload;
    }

    /**
     * The same IOV (channel, since, until) twice in one file: in a multi-version folder the second would silently
     * win, in a single-version one it overlaps; either way it is refused, naming both lines, keys as typed.
     */
    private static final class Duplicates {
        private record Key(long channel, long since, long until) {
        }

        /** Where each IOV was first given: a line, or for a parsed JSON array the index. */
        private final Map<Key, Integer> first = new HashMap<>();
        private final String placePrefix;

        /** {@code placePrefix} names a place with its number: "FILE line " or "IOV #". */
        Duplicates(String placePrefix) {
            this.placePrefix = placePrefix;
        }

        void add(NewIov iov, int place, String sinceText, String untilText) {
            Integer before = first.putIfAbsent(new Key(iov.channelId(), iov.since(), iov.until()), place);
            if (before != null) {
                throw new IllegalArgumentException("the IOV of channel " + iov.channelId() + " from " + sinceText
                        + " to " + untilText + " is given twice, also at " + placePrefix + before + " (each IOV once)");
            }
        }
    }

    /** For each expected column (channel, since, until, the payload fields in order), its index in the header. */
    private static int[] columnPositions(String headerLine, String where, PayloadSpec spec) {
        Map<String, Integer> expected = new LinkedHashMap<>();
        for (String k : KEY_COLUMNS) {
            expected.put(k, expected.size());
        }
        for (int i = 0; i < spec.size(); i++) {
            expected.put(spec.field(i).name(), expected.size());
        }
        List<String> names;
        try {
            names = splitCsv(headerLine.startsWith("\uFEFF") ? headerLine.substring(1) : headerLine);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
        }
        int[] position = new int[expected.size()];
        java.util.Arrays.fill(position, -1);
        for (int c = 0; c < names.size(); c++) {
            String name = names.get(c).trim();
            Integer slot = expected.get(name);
            if (slot == null) {
                throw new IllegalArgumentException(where + ": unknown column '" + name + "'; the columns are "
                        + expectedHeader(spec) + " (any order)");
            }
            if (position[slot] >= 0) {
                throw new IllegalArgumentException(where + ": column '" + name + "' appears twice");
            }
            position[slot] = c;
        }
        List<String> missing = new ArrayList<>();
        expected.forEach((name, slot) -> {
            if (position[slot] < 0) {
                missing.add(name);
            }
        });
        if (!missing.isEmpty()) {
            throw new IllegalArgumentException(where + ": missing column" + (missing.size() == 1 ? " " : "s ")
                    + String.join(", ", missing) + "; the columns are " + expectedHeader(spec) + " (any order)");
        }
        return position;
    }

    private static String expectedHeader(PayloadSpec spec) {
        StringBuilder b = new StringBuilder(String.join(",", KEY_COLUMNS));
        for (int i = 0; i < spec.size(); i++) {
            b.append(',').append(spec.field(i).name());
        }
        return b.toString();
    }

    /** since < until, said with the keys as the file spells them (the caller adds the file and line). */
    private static void checkInterval(long since, long until, KeyType keys) {
        if (since >= until) {
            throw new IllegalArgumentException("since " + KeyText.format(since, keys) + " must be lower than until "
                    + KeyText.format(until, keys));
        }
    }

    /** The cells of one line (RFC 4180 quoting within the line); a quote left open refuses the line. */
    private static List<String> splitCsv(String line) {
        List<String> cells = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        boolean quoted = false;
        int opened = -1;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quoted) {
                if (c == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
                    cur.append('"');
                    i++;
                } else if (c == '"') {
                    quoted = false;
                } else {
                    cur.append(c);
                }
            } else if (c == '"') {
                quoted = true;
                opened = i;
            } else if (c == ',') {
                cells.add(cur.toString());
                cur.setLength(0);
            } else {
                cur.append(c);
            }
        }
        if (quoted) {
            throw new IllegalArgumentException("the quote opened at character " + (opened + 1) + " of column "
                    + (cells.size() + 1) + " is not closed on this line (a quote inside a quoted field is"
                    + " written \"\")");
        }
        cells.add(cur.toString());
        return cells;
    }

    static Object parse(String s, StorageType t) {
        if (s.isEmpty()) {
            return null;
        }
        return switch (t) {
            case BOOL -> bool(s);
            case FLOAT, DOUBLE -> decimal(s.trim());
            case STRING255, STRING4K, STRING64K, STRING16M -> s;
            case BLOB64K, BLOB16M -> Base64.getDecoder().decode(s.trim());
            default -> wholeNumber(s.trim());
        };
    }

    private static long wholeNumber(String s) {
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("write a whole number such as 42 or -7", e);
        }
    }

    /**
     * A floating-point value exactly as written or refused: NaN and infinities do not survive every backend
     * (SQLite stores NaN as NULL, MariaDB refuses both), and a literal beyond a Double's range would be stored as
     * infinity or zero.
     */
    static double decimal(String s) {
        if (!DECIMAL.matcher(s).matches()) {
            throw new IllegalArgumentException(nonDecimal(s));
        }
        double d = Double.parseDouble(s);
        if (Double.isInfinite(d)) {
            throw new IllegalArgumentException("beyond the range of a Double (±1.8e308)");
        }
        if (d == 0 && new java.math.BigDecimal(s).signum() != 0) {
            throw new IllegalArgumentException("too close to zero for a Double (it would be stored as 0)");
        }
        return d;
    }

    private static String nonDecimal(String s) {
        String lower = s.toLowerCase(java.util.Locale.ROOT);
        if (lower.contains("nan") || lower.contains("inf")) {
            return "NaN and infinities are not stored (they do not survive every database); leave the cell empty"
                    + " for NULL";
        }
        return "write a decimal number such as 1.5, -0.25 or 6.02e23";
    }

    /**
     * IOVs from a parsed JSON array in the loader's format (the write API's JSON body). Keys are numbers or text as
     * {@link KeyText} spells them; a payload field left out is NULL, a name the folder does not have refuses the
     * whole array. Errors name the IOV by its index.
     */
    public static List<NewIov> json(JsonNode root, PayloadSpec spec, KeyType keys) {
        if (!root.isArray()) {
            throw new IllegalArgumentException("expected a JSON array of IOVs");
        }
        Duplicates seen = new Duplicates("IOV #");
        List<NewIov> out = new ArrayList<>();
        int index = 0;
        for (JsonNode n : root) {
            out.add(jsonIov(n, "IOV #" + index, index, spec, keys, seen));
            index++;
        }
        return out;
    }

    /** A JSON file, read one IOV at a time so that every refusal names its line. */
    private static Rows jsonFile(Path file, PayloadSpec spec, KeyType keys) throws IOException {
        List<NewIov> out = new ArrayList<>();
        List<Integer> numbers = new ArrayList<>();
        Duplicates seen = new Duplicates(file + " line ");
        try (JsonParser p = FILE_JSON.createParser(file.toFile())) {
            if (p.nextToken() != JsonToken.START_ARRAY) {
                throw new IllegalArgumentException(file + " line " + p.currentTokenLocation().getLineNr()
                        + ": expected a JSON array of IOVs");
            }
            while (p.nextToken() != JsonToken.END_ARRAY) {
                int line = p.currentTokenLocation().getLineNr();
                JsonNode n = FILE_JSON.readTree(p);
                out.add(jsonIov(n, file + " line " + line, line, spec, keys, seen));
                numbers.add(line);
            }
        } catch (tools.jackson.core.JacksonException e) {
            throw new IllegalArgumentException(file + " line " + (e.getLocation() == null ? "?"
                    : e.getLocation().getLineNr()) + ": not valid JSON: " + e.getOriginalMessage(), e);
        }
        return new Rows(out, file.toString(), numbers.stream().mapToInt(Integer::intValue).toArray());
    }

    private static NewIov jsonIov(JsonNode n, String where, int place, PayloadSpec spec, KeyType keys,
                                  Duplicates seen) {
        try {
            if (n == null || !n.isObject() || !n.hasNonNull("channel") || !n.hasNonNull("since")
                    || !n.hasNonNull("until")) {
                throw new IllegalArgumentException("needs \"channel\", \"since\" and \"until\"");
            }
            JsonNode p = n.get("payload");
            Object[] payload = new Object[spec.size()];
            checkNames(n, p, spec);
            for (int i = 0; i < spec.size(); i++) {
                JsonNode v = p == null ? null : p.get(spec.field(i).name());
                try {
                    payload[i] = v == null || v.isNull() ? null : value(v, spec.field(i).type());
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("field '" + spec.field(i).name() + "': '" + v
                            + "' is not a valid " + spec.field(i).type().coolName() + ": " + e.getMessage(), e);
                }
            }
            long since = key(n.get("since"), keys);
            long until = key(n.get("until"), keys);
            checkInterval(since, until, keys);
            NewIov iov = new NewIov(checkChannel(integer(n.get("channel"))), since, until, checkPayload(spec, payload));
            seen.add(iov, place, keyText(n.get("since")), keyText(n.get("until")));
            return iov;
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
        }
    }

    private static String keyText(JsonNode v) {
        return v.isString() ? v.asString().trim() : v.toString();
    }

    /** A JSON key: a whole number or a string, both spelled as in a CSV file (a bare number is no run-lumi key). */
    private static long key(JsonNode v, KeyType keys) {
        if (v.isNumber() && !v.isIntegralNumber()) {
            throw new IllegalArgumentException("'" + v + "' is not a validity key");
        }
        return KeyText.parse(v.isString() ? v.asString() : v.toString(), keys);
    }

    /** Refuses member and payload names the format or the folder does not have (a typo would store NULL). */
    private static void checkNames(JsonNode iov, JsonNode payload, PayloadSpec spec) {
        for (String name : iov.propertyNames()) {
            if (!KEY_COLUMNS.contains(name) && !name.equals("payload")) {
                throw new IllegalArgumentException("unknown member '" + name + "'; an IOV has channel, since, until"
                        + " and payload");
            }
        }
        if (payload == null || payload.isNull()) {
            return;
        }
        if (!payload.isObject()) {
            throw new IllegalArgumentException("\"payload\" must be an object of field values");
        }
        for (String name : payload.propertyNames()) {
            boolean known = false;
            for (int i = 0; i < spec.size() && !known; i++) {
                known = spec.field(i).name().equals(name);
            }
            if (!known) {
                throw new IllegalArgumentException("unknown payload field '" + name + "'; the folder's fields are "
                        + spec);
            }
        }
    }

    /** A whole number, refusing text or fractions that asLong() would silently turn into something else. */
    private static long integer(JsonNode v) {
        if (v.isIntegralNumber()) {
            if (!v.canConvertToLong()) {
                throw new IllegalArgumentException("'" + v + "' is beyond a 64-bit whole number");
            }
            return v.asLong();
        }
        if (v.isString()) {
            try {
                return Long.parseLong(v.asString().trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + v.asString() + "' is not a whole number", e);
            }
        }
        throw new IllegalArgumentException("'" + v + "' is not a whole number");
    }

    private static Object value(JsonNode v, StorageType t) {
        return switch (t) {
            case BOOL -> v.isBoolean() ? v.asBoolean() : Boolean.valueOf(bool(v.asString()));
            case FLOAT, DOUBLE -> jsonDecimal(v);
            case STRING255, STRING4K, STRING64K, STRING16M -> v.asString();
            case BLOB64K, BLOB16M -> Base64.getDecoder().decode(v.asString());
            default -> integer(v);
        };
    }

    /** A JSON number or text as a Double, by the same rule as a CSV cell (its literal, so 1e400 is seen). */
    private static double jsonDecimal(JsonNode v) {
        if (v.isNumber()) {
            if (v.isFloatingPointNumber() && !v.isBigDecimal()) {
                // parsed elsewhere without the literal: at least no NaN or infinity
                double d = v.asDouble();
                if (!Double.isFinite(d)) {
                    throw new IllegalArgumentException("beyond the range of a Double (±1.8e308)");
                }
                return d;
            }
            return decimal(v.isBigDecimal() ? v.decimalValue().toString() : v.toString());
        }
        if (!v.isString()) {
            throw new IllegalArgumentException("a number is expected");
        }
        return decimal(v.asString().trim());
    }

    private static boolean bool(String s) {
        return switch (s.trim().toLowerCase(java.util.Locale.ROOT)) {
            case "true", "1" -> true;
            case "false", "0" -> false;
            default -> throw new IllegalArgumentException("'" + s + "' is not a boolean");
        };
    }
}
