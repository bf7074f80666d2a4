package io.outpost.wire;

import java.util.Objects;

/** One column of an answer: its name and wire type. */
public record Column(String name, ColumnType type) {
    public Column {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(type, "type");
    }

    @Override
    public String toString() {
        return name + ":" + type.wireName();
    }
}
