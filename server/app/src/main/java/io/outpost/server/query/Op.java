package io.outpost.server.query;

/** The kinds of native query, as they appear in the URL. */
public enum Op {
    NODES("nodes"),
    CHANNELS("channels"),
    TAGS("tags"),
    TAG("tag"),
    AT("at"),
    BROWSE("browse"),
    COUNT("count");

    private final String word;

    Op(String word) {
        this.word = word;
    }

    public String word() {
        return word;
    }

    public boolean readsIovs() {
        return this == AT || this == BROWSE || this == COUNT;
    }

    static Op fromWord(String w) {
        for (Op o : values()) {
            if (o.word.equals(w)) {
                return o;
            }
        }
        return null;
    }
}
