package io.outpost.client;

import io.outpost.wire.Schema;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One row of an answer: values typed by column type (see {@link ColumnType#javaType()}), NULL as {@code null}.
 * Immutable as far as this class goes; byte[] values are handed out as they are, callers must not change them.
 */
public final class Row {
    private final Schema schema;
    private final Object[] values;

    /** Wraps (does not copy) {@code values}; its length must be the schema's size. */
    public Row(Schema schema, Object[] values) {
        if (values.length != schema.size()) {
            throw new IllegalArgumentException("row has " + values.length + " values for " + schema.size() + " columns");
        }
        this.schema = schema;
        this.values = values;
    }

    public Schema schema() {
        return schema;
    }

    public int size() {
        return values.length;
    }

    public Object get(int i) {
        return values[i];
    }

    /** The value of the named column; throws IllegalArgumentException if there is no such column. */
    public Object get(String column) {
        return values[index(column)];
    }

    public boolean isNull(String column) {
        return get(column) == null;
    }

    public String getString(String column) {
        return (String) get(column);
    }

    /** Any integer column (Bool excluded) as a long; null if NULL. */
    public Long getLong(String column) {
        Object v = get(column);
        return v == null ? null : ((Number) v).longValue();
    }

    /** Float or Double (or any integer) as a double; null if NULL. */
    public Double getDouble(String column) {
        Object v = get(column);
        return v == null ? null : ((Number) v).doubleValue();
    }

    public Boolean getBoolean(String column) {
        return (Boolean) get(column);
    }

    public byte[] getBytes(String column) {
        return (byte[]) get(column);
    }

    /** The values in column order (an unmodifiable view). */
    public List<Object> values() {
        return Collections.unmodifiableList(Arrays.asList(values));
    }

    /** The values by column name, in column order. */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < values.length; i++) {
            m.put(schema.column(i).name(), values[i]);
        }
        return m;
    }

    private int index(String column) {
        int i = schema.indexOf(column);
        if (i < 0) {
            throw new IllegalArgumentException("no column " + column + " in " + schema);
        }
        return i;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Row r && r.schema.equals(schema) && Arrays.deepEquals(r.values, values);
    }

    @Override
    public int hashCode() {
        return Arrays.deepHashCode(values);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("{");
        for (int i = 0; i < values.length; i++) {
            if (i > 0) {
                sb.append(", ");
            }
            Object v = values[i];
            sb.append(schema.column(i).name()).append('=')
                    .append(v instanceof byte[] b ? "<" + b.length + " bytes>" : v);
        }
        return sb.append('}').toString();
    }
}
