package io.outpost.store.export;

import io.outpost.store.IovStore;
import io.outpost.store.StoreException;
import io.outpost.store.db.Database;
import io.outpost.store.model.Node;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Brings an offline snapshot up to date from its source, for the global tag, key range and folders it was
 * exported with. A folder is copied again only when its generation in the source changed since the snapshot
 * recorded it, or its global tag now resolves to another tag; the IOV rows of a folder whose recorded tag was
 * locked when copied are never copied again (a locked tag cannot change), only its channel list is refreshed.
 * Each folder is replaced in one transaction, so an interrupted sync leaves every folder either as it was or
 * fully updated, and simply running it again finishes.
 */
public final class SnapshotSync {

    /** What a sync did: folders copied (new or changed), folders left as they were, IOV rows copied. */
    public record Result(int copied, int unchanged, long iovs) {
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
            iovs += transfer.transfer(state, first.globalTag(), first.keyFrom(), first.keyTo(), first.folderGlob(),
                    had != null, progress::iovs);
            progress.copied(f.path());
            copied++;
        }
        return new Result(copied, unchanged, iovs);
    }
}
