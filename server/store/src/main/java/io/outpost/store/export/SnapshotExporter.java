package io.outpost.store.export;

import io.outpost.store.IovStore;
import io.outpost.store.StoreException;
import io.outpost.store.model.Node;
import io.outpost.store.read.TagResolver;
import java.util.List;

/**
 * Writes an offline snapshot: everything reads of the matching folders in one global tag over a closed key range
 * [from, to] can see, into an empty database in the same COOL layout (a new SQLite file, or an empty PostgreSQL
 * database). IOVs overlapping the range are copied unclipped, exactly as stored, so every read inside the range
 * returns the same rows, with the same since and until, as the source.
 */
public final class SnapshotExporter {

    /** What to export; {@code folderGlob} matches folder paths ({@code *} within a level, {@code **} across). */
    public record Request(String globalTag, long from, long to, String folderGlob) {
        public Request {
            if (from > to) {
                throw StoreException.badArgument("key range [" + from + ", " + to + "] is empty: --from must not be"
                        + " above --to");
            }
            globalTag = TagResolver.isHead(globalTag) ? "HEAD" : globalTag;
            folderGlob = folderGlob == null || folderGlob.isBlank() ? "/**" : folderGlob;
        }
    }

    /** What was copied. */
    public record Result(int folders, long iovs) {
    }

    /** Progress: called once per folder before it is copied, and with each batch of IOV rows written. */
    public interface Progress {
        void folder(Node folder, int index, int total);

        void iovs(long count);

        /** Sync: the folder (by path) was copied again, being new or changed in the source. */
        default void copied(String folder) {
        }

        Progress NONE = new Progress() {
            @Override
            public void folder(Node folder, int index, int total) {
            }

            @Override
            public void iovs(long count) {
            }
        };
    }

    private final IovStore source;
    private final IovStore target;

    /** @param target a freshly opened, empty store: the snapshot to write */
    public SnapshotExporter(IovStore source, IovStore target) {
        this.source = source;
        this.target = target;
    }

    public Result export(Request r, Progress progress) {
        if (!TagResolver.isHead(r.globalTag())) {
            source.tag(r.globalTag());
        }
        boolean empty = target.listNodes().stream().allMatch(n -> n.id() == 0);
        if (!empty || target.snapshotCoverage() != null) {
            throw StoreException.badArgument("the snapshot database must be empty (a new SQLite file or an empty"
                    + " PostgreSQL database); use sync to update an existing snapshot");
        }
        FolderTransfer transfer = new FolderTransfer(source, target.database());
        List<Node> folders = transfer.folders(r.folderGlob());
        if (folders.isEmpty()) {
            throw StoreException.badArgument("no folder matches '" + r.folderGlob() + "'");
        }
        long iovs = 0;
        for (int i = 0; i < folders.size(); i++) {
            Node f = folders.get(i);
            progress.folder(f, i, folders.size());
            FolderTransfer.SourceState state = transfer.state(f, r.globalTag());
            iovs += transfer.transfer(state, r.globalTag(), r.from(), r.to(), r.folderGlob(), false, progress::iovs);
        }
        return new Result(folders.size(), iovs);
    }
}
