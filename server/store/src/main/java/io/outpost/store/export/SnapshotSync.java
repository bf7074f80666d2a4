package io.outpost.store.export;

import io.outpost.store.IovStore;
import io.outpost.store.StoreException;
import io.outpost.store.db.Database;
import io.outpost.store.model.KeyType;
import io.outpost.store.model.Node;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Brings an offline snapshot up to date from its source, for the global tag, key ranges (one per key type) and
 * folders it was exported with. A folder is copied again only when its generation in the source changed since the snapshot
 * recorded it, or its global tag now resolves to another tag; the IOV rows of a folder whose recorded tag was
 * locked when copied are never copied again (a locked tag cannot change), only its channel list is refreshed.
 * Each folder is replaced in one transaction, so an interrupted sync leaves every folder either as it was or
 * fully updated, and simply running it again finishes.
 */
public final class SnapshotSync {

    /**
     * What a sync did: folders copied (new or changed), folders left as they were, IOV rows copied, and new folders
     * not added because the snapshot has no key range of their key type.
     */
    public record Result(int copied, int unchanged, long iovs, List<String> skipped) {
    }

    /**
     * The key range each key type was exported with, from the coverage rows (a folder's row holds the range of its
     * key type); a key type no folder was exported with has none.
     */
    static Map<KeyType, SnapshotExporter.Range> ranges(List<CoverageRow> rows, Map<String, KeyType> keyTypes) {
        Map<KeyType, SnapshotExporter.Range> out = new EnumMap<>(KeyType.class);
        for (CoverageRow r : rows) {
            KeyType k = keyTypes.get(r.folderPath());
            if (k != null) {
                out.putIfAbsent(k, new SnapshotExporter.Range(r.keyFrom(), r.keyTo()));
            }
        }
        return out;
    }

    private final IovStore source;
    private final Database snapshot;

    /** @param snapshot the snapshot's database, opened and migrated (not through a store: a snapshot store is read-only) */
    public SnapshotSync(IovStore source, Database snapshot) {
        this.source = source;
        this.snapshot = snapshot;
    }

    public Result sync(SnapshotExporter.Progress progress) {
        FolderTransfer transfer = new FolderTransfer(source, snapshot);
        List<CoverageRow> rows = transfer.coverage();
        if (rows.isEmpty()) {
            throw StoreException.badArgument("the target is not a snapshot (it records no coverage): export one first");
        }
        CoverageRow first = rows.get(0);
        Map<Long, CoverageRow> recorded = new HashMap<>();
        rows.forEach(r -> recorded.put(r.nodeId(), r));
        List<Node> folders = transfer.folders(first.folderGlob());
        Map<String, KeyType> keyTypes = new HashMap<>();
        folders.forEach(f -> keyTypes.put(f.path(), f.keyType()));
        Map<KeyType, SnapshotExporter.Range> ranges = ranges(rows, keyTypes);
        List<String> skipped = new ArrayList<>();
        int copied = 0;
        int unchanged = 0;
        long iovs = 0;
        for (int i = 0; i < folders.size(); i++) {
            Node f = folders.get(i);
            progress.folder(f, i, folders.size());
            FolderTransfer.SourceState state = transfer.state(f, first.globalTag());
            CoverageRow had = recorded.get(f.id());
            if (had != null && Objects.equals(had.folderTag(), state.folderTagName())
                    && (had.tagLocked() || had.sourceGeneration().equals(state.generation()))) {
                if (!had.sourceGeneration().equals(state.generation())) {
                    transfer.refreshChannels(f);
                }
                unchanged++;
                continue;
            }
            SnapshotExporter.Range range = had != null ? new SnapshotExporter.Range(had.keyFrom(), had.keyTo())
                    : ranges.get(f.keyType());
            if (range == null) {
                skipped.add(f.path());
                continue;
            }
            iovs += transfer.transfer(state, first.globalTag(), range.from(), range.to(), first.folderGlob(),
                    had != null, progress::iovs);
            progress.copied(f.path());
            copied++;
        }
        return new Result(copied, unchanged, iovs, List.copyOf(skipped));
    }
}
