package io.outpost.wire;

/** What an answer holds (the {@code kind} byte of the content, docs/wire-format.md). */
public enum AnswerKind {
    IOVS(1, "iovs"),
    NODES(2, "nodes"),
    CHANNELS(3, "channels"),
    TAGS(4, "tags"),
    COUNT(5, "count"),
    TAG(6, "tag"),
    GLOBALTAGS(7, "globaltags"),
    RESOLVE(8, "resolve"),
    STATE(9, "state"),
    SNAPSHOT(10, "snapshot");

    private final int code;
    private final String jsonName;

    AnswerKind(int code, String jsonName) {
        this.code = code;
        this.jsonName = jsonName;
    }

    public int code() {
        return code;
    }

    /** The name used by the JSON form, e.g. {@code iovs}. */
    public String jsonName() {
        return jsonName;
    }

    /** The kind with this code, or null. */
    public static AnswerKind ofCode(int code) {
        for (AnswerKind k : values()) {
            if (k.code == code) {
                return k;
            }
        }
        return null;
    }

    public static AnswerKind ofJsonName(String name) {
        for (AnswerKind k : values()) {
            if (k.jsonName.equals(name)) {
                return k;
            }
        }
        throw new IllegalArgumentException("unknown answer kind: " + name);
    }
}
