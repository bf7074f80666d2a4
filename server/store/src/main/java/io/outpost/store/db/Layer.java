package io.outpost.store.db;

/**
 * The set of rows one read looks at, COOL's "layer": all rows of a single-version folder, the visible rows of
 * the HEAD (user tag 0) or of a user tag in a multi-version folder, or the snapshot of a standard tag.
 * Within a layer intervals never overlap per channel, which is what makes the MAX lower bound correct.
 */
public record Layer(Kind kind, long id) {
    public enum Kind { SINGLE_VERSION, USER_TAG, STANDARD_TAG }

    public static final Layer SV = new Layer(Kind.SINGLE_VERSION, 0);
    public static final Layer HEAD = new Layer(Kind.USER_TAG, 0);

    public static Layer userTag(long id) {
        return new Layer(Kind.USER_TAG, id);
    }

    public static Layer standardTag(long id) {
        return new Layer(Kind.STANDARD_TAG, id);
    }

    /** Appends the layer filter for alias {@code a} (with a leading AND), binding its id. */
    void appendFilter(Sql sql, String a) {
        switch (kind) {
            case SINGLE_VERSION -> { }
            case USER_TAG -> sql.append(" AND ").append(a).append(".USER_TAG_ID = ").bind(id)
                    .append(" AND ").append(a).append(".NEW_HEAD_ID = 0");
            case STANDARD_TAG -> sql.append(" AND ").append(a).append(".TAG_ID = ").bind(id);
        }
    }
}
