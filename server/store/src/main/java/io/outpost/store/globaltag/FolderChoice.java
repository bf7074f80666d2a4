package io.outpost.store.globaltag;

import io.outpost.store.model.Node;
import io.outpost.store.model.Tag;

/**
 * What a global tag chooses for one folder: the folder's own tag, or the HEAD ({@code tag} null) when the global
 * tag does not reach the folder (no relation on the way down, or a single-version folder, which has no tags).
 */
public record FolderChoice(Node folder, Tag tag) {

    public boolean isHead() {
        return tag == null;
    }

    /** The tag name a read uses: the folder's own tag, or "HEAD". */
    public String tagName() {
        return tag == null ? "HEAD" : tag.name();
    }
}
