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
     * generation string and {@code token} its URL form.
     */
    public record FolderState(Node folder, String tag, String lock, String stamp, GenerationToken token) {
    }

    /** The subtree as it is written after the tag in URLs: "" for the whole tree. */
    public String subtreeSuffix() {
        return subtree.equals("/") ? "" : subtree;
    }
}
