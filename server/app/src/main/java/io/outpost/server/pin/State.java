package io.outpost.server.pin;

import io.outpost.store.model.Node;
import java.util.List;

/**
 * The state of a global tag (or of the HEAD over a subtree): every folder it covers, the tag a read of it uses and
 * the folder's generation; {@code hash} names this exact combination in pinned snapshot URLs.
 *
 * @param tag     the global tag, or "HEAD"
 * @param subtree the folderset or folder the state is restricted to ("/" for all)
 */
public record State(String tag, String subtree, List<FolderState> folders, String hash) {

    /**
     * One folder of a state; {@code lock} is the tag's lock status ("" for the HEAD), {@code stamp} the catalog's
     * generation string and {@code token} the generation in URLs: the stamp's, or for a folder read through a frozen
     * global tag ({@code frozen}) the lock's (FrozenReads).
     */
    public record FolderState(Node folder, String tag, String lock, String stamp, GenerationToken token,
                              boolean frozen) {

        /**
         * How the folder is read, as the snapshot says it: through a tag, at the HEAD, or at the HEAD of a
         * single-version folder (which has no tags, so every global tag reads its HEAD, frozen or not).
         */
        public String reads() {
            if (!folder.isMultiVersion()) {
                return "single-version HEAD";
            }
            return tag.equals("HEAD") ? "HEAD" : "tag";
        }
    }

    /** The subtree as it is written after the tag in URLs: "" for the whole tree. */
    public String subtreeSuffix() {
        return subtree.equals("/") ? "" : subtree;
    }
}
