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
final class IovFiles {
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

    private static long key(String s) {
        return s.trim().equalsIgnoreCase("max") ? ValidityKey.MAX : Long.parseLong(s.trim());
    }

    private static List<NewIov> csv(Path file, PayloadSpec spec) throws IOException {
        List<NewIov> out = new ArrayList<>();
        List<String> lines = Files.readAllLines(file);
        for (int n = 1; n < lines.size(); n++) {
            String line = lines.get(n);
            if (line.isBlank()) {
                continue;
            }
            List<String> cells = splitCsv(line);
            if (cells.size() != 3 + spec.size()) {
                throw new IllegalArgumentException(file + " line " + (n + 1) + ": expected " + (3 + spec.size())
                        + " columns (channel,since,until," + spec + "), got " + cells.size());
            }
            Object[] payload = new Object[spec.size()];
            for (int i = 0; i < spec.size(); i++) {
                payload[i] = parse(cells.get(3 + i), spec.field(i).type());
            }
            out.add(new NewIov(Long.parseLong(cells.get(0).trim()), key(cells.get(1)), key(cells.get(2)), payload));
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
            case BOOL -> Boolean.parseBoolean(s.trim());
            case FLOAT, DOUBLE -> Double.parseDouble(s.trim());
            case STRING255, STRING4K, STRING64K, STRING16M -> s;
            case BLOB64K, BLOB16M -> Base64.getDecoder().decode(s.trim());
            default -> Long.parseLong(s.trim());
        };
    }

    private static List<NewIov> json(Path file, PayloadSpec spec) throws IOException {
        JsonNode root = JsonMapper.builder().build().readTree(file.toFile());
        List<NewIov> out = new ArrayList<>();
        for (JsonNode n : root) {
            JsonNode p = n.get("payload");
            Object[] payload = new Object[spec.size()];
            for (int i = 0; i < spec.size(); i++) {
                JsonNode v = p == null ? null : p.get(spec.field(i).name());
                payload[i] = v == null || v.isNull() ? null : value(v, spec.field(i).type());
            }
            out.add(new NewIov(n.get("channel").asLong(), key(n.get("since").asString()), key(n.get("until").asString()),
                    payload));
        }
        return out;
    }

    private static Object value(JsonNode v, StorageType t) {
        return switch (t) {
            case BOOL -> v.asBoolean();
            case FLOAT, DOUBLE -> v.asDouble();
            case STRING255, STRING4K, STRING64K, STRING16M -> v.asString();
            case BLOB64K, BLOB16M -> Base64.getDecoder().decode(v.asString());
            default -> v.asLong();
        };
    }
}
