package io.outpost.store.export;

import io.outpost.store.IovStore;
import io.outpost.store.StoreException;
import io.outpost.store.model.KeyType;
import io.outpost.store.model.Node;
import io.outpost.store.read.TagResolver;
import java.util.List;

/**
 * Writes an offline snapshot: everything reads of the matching folders in one global tag over a closed key range
 * [from, to] of each folder's key type (a time range and a run range) can see, into an empty database in the same COOL layout (a new SQLite file, or an empty PostgreSQL
 * database). IOVs overlapping the range are copied unclipped, exactly as stored, so every read inside the range
 * returns the same rows, with the same since and until, as the source.
 */
public final class SnapshotExporter {

    /** A closed key range [from, to]. */
    public record Range(long from, long to) {
        public Range {
            if (from > to) {
                throw StoreException.badArgument("key range [" + from + ", " + to + "] is empty: its start must not be"
                        + " above its end");
            }
        }
    }

    /**
     * What to export: the key range of the time folders and that of the run-lumi folders (null: none given);
     * {@code folderGlob} matches folder paths ({@code *} within a level, {@code **} across); {@code oneKeyType}:
     * the one range given is meant for folders of one key type, so a selection holding both is refused.
     */
    public record Request(String globalTag, Range time, Range runLumi, String folderGlob, boolean oneKeyType) {
        public Request {
            globalTag = TagResolver.isHead(globalTag) ? "HEAD" : globalTag;
            folderGlob = folderGlob == null || folderGlob.isBlank() ? "/**" : folderGlob;
            if (time == null && runLumi == null) {
                throw StoreException.badArgument("no key range: give a time range, a run range, or both");
            }
        }

        /** The same range [from, to] for every folder, whatever its key type. */
        public Request(String globalTag, long from, long to, String folderGlob) {
            this(globalTag, new Range(from, to), new Range(from, to), folderGlob, false);
        }

        /** A time range and a run range (either may be null when the selection holds no folder of that type). */
        public static Request perKeyType(String globalTag, Range time, Range runLumi, String folderGlob) {
            return new Request(globalTag, time, runLumi, folderGlob, false);
        }

        /** One range for a selection of folders of one key type, refused for one holding both ({@link #check}). */
        public static Request oneKeyType(String globalTag, long from, long to, String folderGlob) {
            Range r = new Range(from, to);
            return new Request(globalTag, r, r, folderGlob, true);
        }

        /** The range of {@code folder}'s key type, or a clear error when none was given for it. */
        public Range range(Node folder) {
            return range(folder.path(), folder.keyType());
        }

        public Range range(String path, KeyType keyType) {
            Range r = keyType == KeyType.RUN_LUMI ? runLumi : time;
            if (r == null) {
                String word = keyType == KeyType.RUN_LUMI ? "run" : "time";
                throw StoreException.badArgument("folder '" + path + "' has " + keyType.label() + " keys, and no "
                        + word + " range was given (--" + word + "-from/--" + word + "-to)");
            }
            return r;
        }

        /**
         * Fails when one range is meant for folders of both key types: a run range read as times (or the reverse)
         * would export the wrong rows (run 300 is 1.3e12 ns, 21 minutes after 1970).
         */
        public void check(List<KeyType> keyTypes) {
            if (oneKeyType && keyTypes.stream().distinct().count() > 1) {
                throw StoreException.badArgument("the folders hold time and run-lumi keys: one key range cannot mean"
                        + " both; give --time-from/--time-to and --run-from/--run-to instead of --from/--to");
            }
        }

        /** As printed: {@code [from, to]}, or the range of each key type. */
        public String describe() {
            if (time != null && time.equals(runLumi)) {
                return "[" + time.from() + ", " + time.to() + "]";
            }
            return (time == null ? "" : "times [" + time.from() + ", " + time.to() + "]")
                    + (time != null && runLumi != null ? " and " : "")
                    + (runLumi == null ? "" : "run-lumi keys [" + runLumi.from() + ", " + runLumi.to() + "]");
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
        r.check(folders.stream().map(Node::keyType).toList());
        folders.forEach(r::range);
        long iovs = 0;
        for (int i = 0; i < folders.size(); i++) {
            Node f = folders.get(i);
            progress.folder(f, i, folders.size());
            FolderTransfer.SourceState state = transfer.state(f, r.globalTag());
            Range range = r.range(f);
            iovs += transfer.transfer(state, r.globalTag(), range.from(), range.to(), r.folderGlob(), false,
                    progress::iovs);
        }
        return new Result(folders.size(), iovs);
    }
}
