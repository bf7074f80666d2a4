package io.outpost.server.pin;

import io.outpost.store.model.KeyType;

/**
 * The key part of a snapshot URL (docs/api.md, "Mixed key types"): one key {@code t} read in every folder, or a
 * time and a run-lumi key {@code {time},{runlumi}}, each read in the folders of its key type.
 */
public record SnapshotKeys(long time, long runLumi, boolean pair) {

    public static SnapshotKeys one(long t) {
        return new SnapshotKeys(t, t, false);
    }

    public static SnapshotKeys of(long time, long runLumi) {
        return new SnapshotKeys(time, runLumi, true);
    }

    /** The key a folder of {@code type} is read at. */
    public long forType(KeyType type) {
        return type == KeyType.RUN_LUMI ? runLumi : time;
    }

    /** As written in URLs: {@code t} or {@code time,runlumi}. */
    public String path() {
        return pair ? time + "," + runLumi : Long.toString(time);
    }

    @Override
    public String toString() {
        return path();
    }
}
