package io.outpost.store.cli;

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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Reads IOVs to load. CSV: a header line naming the columns channel, since, until and the folder's fields in any
 * order, then one IOV per line, with {@code max} for an open end, blobs in base64, empty = NULL (quotes allowed
 * around strings). JSON: an array of {@code {"channel":1,"since":0,"until":"max","payload":{"field":value,…}}}.
 */
public final class IovFiles {
    private static final List<String> KEY_COLUMNS = List.of("channel", "since", "until");

    private IovFiles() {
    }

    static List<NewIov> read(Path file, PayloadSpec spec, KeyType keys) throws IOException {
        String name = file.getFileName().toString().toLowerCase(java.util.Locale.ROOT);
        if (name.endsWith(".json")) {
            return json(JsonMapper.builder().build().readTree(file.toFile()), spec, keys);
        }
        if (name.endsWith(".csv")) {
            return csv(Files.readAllLines(file), file.toString(), spec, keys);
        }
        throw new IllegalArgumentException("file must end in .csv or .json: " + file);
    }

    private static long channel(String s) {
        try {
            return Long.parseLong(s.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("channel '" + s + "' is not a whole number", e);
        }
    }

    /**
     * IOVs from the lines of a CSV text; {@code source} names it in errors. The first line names the columns, in any
     * order: channel, since, until and every payload field of the folder, each once; an unknown, missing or repeated
     * name refuses the whole text, so that no value lands in the wrong field. Keys as {@link KeyText} spells them.
     * Shared by the loader and the service's write API, so both accept exactly the same files.
     */
    public static List<NewIov> csv(List<String> lines, String source, PayloadSpec spec, KeyType keys) {
        int headerLine = 0;
        while (headerLine < lines.size() && lines.get(headerLine).isBlank()) {
            headerLine++;
        }
        if (headerLine == lines.size()) {
            throw new IllegalArgumentException(source + ": empty; the first line names the columns, e.g. "
                    + expectedHeader(spec));
        }
        int[] position = columnPositions(lines.get(headerLine), source + " line " + (headerLine + 1), spec);
        List<NewIov> out = new ArrayList<>();
        for (int n = headerLine + 1; n < lines.size(); n++) {
            String line = lines.get(n);
            if (line.isBlank()) {
                continue;
            }
            List<String> cells = splitCsv(line);
            if (cells.size() != 3 + spec.size()) {
                throw new IllegalArgumentException(source + " line " + (n + 1) + ": expected " + (3 + spec.size())
                        + " columns as the header names them, got " + cells.size());
            }
            try {
                Object[] payload = new Object[spec.size()];
                for (int i = 0; i < spec.size(); i++) {
                    String cell = cells.get(position[3 + i]);
                    try {
                        payload[i] = parse(cell, spec.field(i).type());
                    } catch (IllegalArgumentException e) {
                        throw new IllegalArgumentException("field '" + spec.field(i).name() + "': '" + cell
                                + "' is not a valid " + spec.field(i).type().coolName(), e);
                    }
                }
                long since = KeyText.parse(cells.get(position[1]), keys);
                long until = KeyText.parse(cells.get(position[2]), keys);
                checkInterval(since, until, keys);
                out.add(new NewIov(channel(cells.get(position[0])), since, until, payload));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(source + " line " + (n + 1) + ": " + e.getMessage(), e);
            }
        }
        return out;
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
        List<String> names = splitCsv(headerLine.startsWith("\uFEFF") ? headerLine.substring(1) : headerLine);
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

    private static List<String> splitCsv(String line) {
        List<String> cells = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        boolean quoted = false;
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
            } else if (c == ',') {
                cells.add(cur.toString());
                cur.setLength(0);
            } else {
                cur.append(c);
            }
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
            case FLOAT, DOUBLE -> Double.parseDouble(s.trim());
            case STRING255, STRING4K, STRING64K, STRING16M -> s;
            case BLOB64K, BLOB16M -> Base64.getDecoder().decode(s.trim());
            default -> Long.parseLong(s.trim());
        };
    }

    /**
     * IOVs from a parsed JSON array in the loader's format. Keys are numbers or text as {@link KeyText} spells them;
     * a payload field left out is NULL, a name the folder does not have refuses the whole array.
     */
    public static List<NewIov> json(JsonNode root, PayloadSpec spec, KeyType keys) {
        if (!root.isArray()) {
            throw new IllegalArgumentException("expected a JSON array of IOVs");
        }
        List<NewIov> out = new ArrayList<>();
        int index = 0;
        for (JsonNode n : root) {
            String where = "IOV #" + index++;
            if (!n.isObject() || !n.hasNonNull("channel") || !n.hasNonNull("since") || !n.hasNonNull("until")) {
                throw new IllegalArgumentException(where + ": needs \"channel\", \"since\" and \"until\"");
            }
            JsonNode p = n.get("payload");
            Object[] payload = new Object[spec.size()];
            try {
                checkNames(n, p, spec);
                for (int i = 0; i < spec.size(); i++) {
                    JsonNode v = p == null ? null : p.get(spec.field(i).name());
                    payload[i] = v == null || v.isNull() ? null : value(v, spec.field(i).type());
                }
                long since = key(n.get("since"), keys);
                long until = key(n.get("until"), keys);
                checkInterval(since, until, keys);
                out.add(new NewIov(integer(n.get("channel")), since, until, payload));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
            }
        }
        return out;
    }

    private static long key(JsonNode v, KeyType keys) {
        if (v.isNumber() && !v.isIntegralNumber()) {
            throw new IllegalArgumentException("'" + v + "' is not a validity key");
        }
        return KeyText.parse(v.asString(), keys);
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
            case FLOAT, DOUBLE -> v.isNumber() ? v.asDouble() : Double.parseDouble(v.asString().trim());
            case STRING255, STRING4K, STRING64K, STRING16M -> v.asString();
            case BLOB64K, BLOB16M -> Base64.getDecoder().decode(v.asString());
            default -> integer(v);
        };
    }

    private static boolean bool(String s) {
        return switch (s.trim().toLowerCase(java.util.Locale.ROOT)) {
            case "true", "1" -> true;
            case "false", "0" -> false;
            default -> throw new IllegalArgumentException("'" + s + "' is not a boolean");
        };
    }
}
