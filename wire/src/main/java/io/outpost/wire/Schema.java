package io.outpost.wire;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The columns of an answer (or of an IOV payload), with lookup by name. Immutable and shared by all its rows. */
public final class Schema {
    private final List<Column> columns;
    private final Map<String, Integer> indexByName;

    public Schema(List<Column> columns) {
        this.columns = List.copyOf(columns);
        Map<String, Integer> index = new HashMap<>();
        for (int i = 0; i < this.columns.size(); i++) {
            index.putIfAbsent(this.columns.get(i).name(), i);
        }
        this.indexByName = Map.copyOf(index);
    }

    public List<Column> columns() {
        return columns;
    }

    public int size() {
        return columns.size();
    }

    public Column column(int i) {
        return columns.get(i);
    }

    /** The index of the column with this name, or -1. */
    public int indexOf(String name) {
        Integer i = indexByName.get(name);
        return i == null ? -1 : i;
    }

    /** The columns from {@code from} on, as their own schema (the payload of an IOV row). */
    public Schema suffix(int from) {
        return new Schema(columns.subList(from, columns.size()));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Schema s && s.columns.equals(columns);
    }

    @Override
    public int hashCode() {
        return columns.hashCode();
    }

    @Override
    public String toString() {
        return columns.toString();
    }
}
