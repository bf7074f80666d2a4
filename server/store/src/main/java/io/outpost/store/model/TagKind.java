package io.outpost.store.model;

/**
 * How a tag's contents are stored: a standard tag is a snapshot in the folder's IOV2TAG table; a user tag is
 * its own layer in the IOVS table; a folderset tag only has children through TAG2TAG.
 */
public enum TagKind {
    STANDARD(0),
    USER(1),
    FOLDERSET(2);

    private final int code;

    TagKind(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    public static TagKind fromCode(int code) {
        for (TagKind k : values()) {
            if (k.code == code) {
                return k;
            }
        }
        throw new IllegalArgumentException("unknown tag type " + code);
    }
}
