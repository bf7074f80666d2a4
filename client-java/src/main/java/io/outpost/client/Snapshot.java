package io.outpost.client;

import java.util.List;
import java.util.Map;

/**
 * Every folder of a global tag (or of the HEAD over a subtree) at one key, all at the generations of one state.
 *
 * @param state      the state hash the snapshot is pinned to
 * @param validSince the same snapshot holds for every key in [validSince, validUntil)
 * @param folders    by folder path, in path order
 * @param requests   HTTP requests this snapshot took (0 when reused from the session)
 * @param bytes      bytes of the answers those requests received (encoded, as on the wire)
 */
public record Snapshot(String globalTag, String state, long validSince, long validUntil,
                       Map<String, FolderSnapshot> folders, int requests, long bytes) {

    /**
     * One folder of a snapshot: the tag it was read with, its generation and its at-time answer (the objects valid
     * at the key, all channels).
     */
    public record FolderSnapshot(String folder, String tag, String generation, Answer answer) {
        public List<Iov> iovs() {
            return answer.iovs();
        }
    }

    public boolean covers(long t) {
        return validSince <= t && t < validUntil;
    }

    /** The objects of {@code folder} valid at the key, or IllegalArgumentException if it is not in the snapshot. */
    public List<Iov> iovs(String folder) {
        FolderSnapshot f = folders.get(folder);
        if (f == null) {
            throw new IllegalArgumentException("'" + folder + "' is not in the snapshot of " + globalTag);
        }
        return f.iovs();
    }

    /** Total rows over all folders. */
    public long rowCount() {
        return folders.values().stream().mapToLong(f -> f.iovs().size()).sum();
    }
}
