package io.outpost.client;

/** A tag (one row of a {@code tags} or {@code tag} answer). */
public record TagInfo(String name, String node, String kind, String lock, String description, String insertionTime) {
    static TagInfo of(Row r) {
        return new TagInfo(r.getString("name"), r.getString("node"), r.getString("kind"), r.getString("lock"),
                r.getString("description"), r.getString("insertionTime"));
    }
}
