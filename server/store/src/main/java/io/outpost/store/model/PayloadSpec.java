package io.outpost.store.model;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/** A folder's payload specification, written as COOL writes it: {@code name:Type,name:Type}. */
public record PayloadSpec(List<PayloadField> fields) {

    public PayloadSpec {
        fields = List.copyOf(fields);
        if (fields.isEmpty()) {
            throw new IllegalArgumentException("a payload specification needs at least one field");
        }
        Set<String> seen = new HashSet<>();
        for (PayloadField f : fields) {
            if (!seen.add(f.name().toUpperCase(Locale.ROOT))) {
                throw new IllegalArgumentException("payload field '" + f.name() + "' appears twice");
            }
        }
    }

    public static PayloadSpec parse(String text) {
        List<PayloadField> fields = new ArrayList<>();
        for (String part : text.split(",")) {
            String p = part.trim();
            int colon = p.indexOf(':');
            if (colon <= 0) {
                throw new IllegalArgumentException("payload field '" + p + "' must be written name:Type");
            }
            fields.add(new PayloadField(p.substring(0, colon).trim(), StorageType.fromCoolName(p.substring(colon + 1).trim())));
        }
        return new PayloadSpec(fields);
    }

    public int size() {
        return fields.size();
    }

    public PayloadField field(int i) {
        return fields.get(i);
    }

    /** Checks every value against its field and returns the canonical values; the message names the field. */
    public Object[] coerce(Object[] values) {
        if (values.length != fields.size()) {
            throw new IllegalArgumentException("payload has " + values.length + " values but the folder's spec has "
                    + fields.size() + " fields (" + this + ")");
        }
        Object[] out = new Object[values.length];
        for (int i = 0; i < values.length; i++) {
            try {
                out[i] = fields.get(i).type().coerce(values[i]);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("field '" + fields.get(i).name() + "': " + e.getMessage(), e);
            }
        }
        return out;
    }

    @Override
    public String toString() {
        return fields.stream().map(f -> f.name() + ":" + f.type().coolName()).collect(Collectors.joining(","));
    }
}
