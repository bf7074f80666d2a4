package io.outpost.store.cli;

import io.outpost.store.model.NewIov;
import io.outpost.store.model.PayloadSpec;
import io.outpost.store.model.StorageType;
import io.outpost.store.model.ValidityKey;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Reads IOVs to load. CSV: a header line, then {@code channel,since,until,field1,field2,…} with {@code max} for
 * an open end, blobs in base64, empty = NULL (quotes allowed around strings). JSON: an array of
 * {@code {"channel":1,"since":0,"until":"max","payload":{"field":value,…}}}.
 */
public final class IovFiles {
    private IovFiles() {
    }

    static List<NewIov> read(Path file, PayloadSpec spec) throws IOException {
        String name = file.getFileName().toString().toLowerCase(java.util.Locale.ROOT);
        if (name.endsWith(".json")) {
            return json(file, spec);
        }
        if (name.endsWith(".csv")) {
            return csv(file, spec);
        }
        throw new IllegalArgumentException("file must end in .csv or .json: " + file);
    }

    private static long number(String column, String s) {
        try {
            return column.equals("channel") ? Long.parseLong(s.trim()) : key(s);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(column + " '" + s + "' is not a whole number" + (column.equals("channel")
                    ? "" : " or 'max'"), e);
        }
    }

    private static long key(String s) {
        return s.trim().equalsIgnoreCase("max") ? ValidityKey.MAX : Long.parseLong(s.trim());
    }

    private static List<NewIov> csv(Path file, PayloadSpec spec) throws IOException {
        return csv(Files.readAllLines(file), file.toString(), spec);
    }

    /**
     * IOVs from the lines of a CSV text (the first line is the header); {@code source} names it in errors. Shared by
     * the loader and the service's write API, so both accept exactly the same files.
     */
    public static List<NewIov> csv(List<String> lines, String source, PayloadSpec spec) {
        List<NewIov> out = new ArrayList<>();
        for (int n = 1; n < lines.size(); n++) {
            String line = lines.get(n);
            if (line.isBlank()) {
                continue;
            }
            List<String> cells = splitCsv(line);
            if (cells.size() != 3 + spec.size()) {
                throw new IllegalArgumentException(source + " line " + (n + 1) + ": expected " + (3 + spec.size())
                        + " columns (channel,since,until," + spec + "), got " + cells.size());
            }
            try {
                Object[] payload = new Object[spec.size()];
                for (int i = 0; i < spec.size(); i++) {
                    try {
                        payload[i] = parse(cells.get(3 + i), spec.field(i).type());
                    } catch (IllegalArgumentException e) {
                        throw new IllegalArgumentException("field '" + spec.field(i).name() + "': '" + cells.get(3 + i)
                                + "' is not a valid " + spec.field(i).type().coolName(), e);
                    }
                }
                out.add(new NewIov(number("channel", cells.get(0)), number("since", cells.get(1)),
                        number("until", cells.get(2)), payload));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(source + " line " + (n + 1) + ": " + e.getMessage(), e);
            }
        }
        return out;
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

    private static List<NewIov> json(Path file, PayloadSpec spec) throws IOException {
        return json(JsonMapper.builder().build().readTree(file.toFile()), spec);
    }

    /** IOVs from a parsed JSON array in the loader's format. */
    public static List<NewIov> json(JsonNode root, PayloadSpec spec) {
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
                for (int i = 0; i < spec.size(); i++) {
                    JsonNode v = p == null ? null : p.get(spec.field(i).name());
                    payload[i] = v == null || v.isNull() ? null : value(v, spec.field(i).type());
                }
                out.add(new NewIov(integer(n.get("channel")), key(n.get("since").asString()),
                        key(n.get("until").asString()), payload));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
            }
        }
        return out;
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
