package io.outpost.store.model;

import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/** One payload column: a name (used as the column name, upper-cased) and a COOL storage type. */
public record PayloadField(String name, StorageType type) {
    private static final Pattern NAME = Pattern.compile("[A-Za-z][A-Za-z0-9_]{0,29}");
    private static final Set<String> RESERVED = Set.of("OBJECT_ID", "CHANNEL_ID", "IOV_SINCE", "IOV_UNTIL",
            "USER_TAG_ID", "SYS_INSTIME", "LASTMOD_DATE", "ORIGINAL_ID", "NEW_HEAD_ID", "TAG_ID", "SELECT", "FROM",
            "WHERE", "ORDER", "GROUP", "TABLE", "INDEX", "USER", "LEVEL", "SIZE", "DATE", "NUMBER");

    public PayloadField {
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("payload field name '" + name
                    + "' must start with a letter and hold only letters, digits and '_' (at most 30)");
        }
        if (RESERVED.contains(name.toUpperCase(Locale.ROOT))) {
            throw new IllegalArgumentException("payload field name '" + name + "' is reserved");
        }
    }

    /** The database column holding this field. */
    public String column() {
        return name.toUpperCase(Locale.ROOT);
    }
}
