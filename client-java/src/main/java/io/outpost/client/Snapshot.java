package io.outpost.client;

import java.util.List;
import java.util.Map;

/**
 * Every folder of a global tag (or of the HEAD over a subtree) at one key, all at the generations of one state.
 *
 * @param state      the state hash the snapshot is pinned to
 * @param validSince the same snapshot holds for every key in [validSince, validUntil) (both 0 for a snapshot of time
 *                   and run-lumi folders: see the per key type intervals)
 * @param time       the interval common to the time folders, or null when there are none (or the service is
 *                   older than per key type validity)
 * @param runLumi    the same for the run-lumi folders
 * @param folders    by folder path, in path order
 * @param requests   HTTP requests this snapshot took (0 when reused from the session)
 * @param bytes      bytes of the answers those requests received (encoded, as on the wire)
 */
public record Snapshot(String globalTag, String state, long validSince, long validUntil, Validity time,
                       Validity runLumi, Map<String, FolderSnapshot> folders, int requests, long bytes) {

    /** Every key in [since, until) of its key type gives the same answers. */
    public record Validity(long since, long until) {
        public boolean covers(long key) {
            return since <= key && key < until;
        }
    }

    /**
     * One folder of a snapshot: the tag it was read with, its generation and its at-time answer (the objects valid
     * at the key, all channels).
     */
    public record FolderSnapshot(String folder, String tag, String generation, String keyType, Answer answer) {
        public List<Iov> iovs() {
            return answer.iovs();
        }
    }

    public boolean covers(long t) {
        return validSince <= t && t < validUntil;
    }

    /** True when both keys lie in the validity of their key type (a key type without folders always covers). */
    public boolean covers(long timeKey, long runLumiKey) {
        if (time == null && runLumi == null) {
            return covers(timeKey) && covers(runLumiKey);
        }
        return (time == null || time.covers(timeKey)) && (runLumi == null || runLumi.covers(runLumiKey));
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
