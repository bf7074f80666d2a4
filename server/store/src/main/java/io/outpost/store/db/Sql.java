package io.outpost.store.db;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/** SQL text built together with its bind values, so that binds always follow the text's order. */
public final class Sql {
    private final StringBuilder text = new StringBuilder(512);
    private final List<Object> binds = new ArrayList<>();

    public Sql append(String s) {
        text.append(s);
        return this;
    }

    /** Appends one {@code ?} placeholder and its value. */
    public Sql bind(Object value) {
        text.append('?');
        binds.add(value);
        return this;
    }

    public String text() {
        return text.toString();
    }

    public List<Object> binds() {
        return binds;
    }

    public void bindTo(PreparedStatement ps) throws SQLException {
        for (int i = 0; i < binds.size(); i++) {
            ps.setObject(i + 1, binds.get(i));
        }
    }

    @Override
    public String toString() {
        return text + " " + binds;
    }
}
