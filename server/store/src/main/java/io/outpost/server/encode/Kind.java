package io.outpost.server.encode;

/** What an answer holds; the codes are the first byte of the binary content. */
public enum Kind {
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
    private final String label;

    Kind(int code, String label) {
        this.code = code;
        this.label = label;
    }

    public int code() {
        return code;
    }

    public String label() {
        return label;
    }
}
