package io.outpost.store.export;

import io.outpost.store.IovStore;
import io.outpost.store.StoreException;
import io.outpost.store.db.Database;
import io.outpost.store.db.DatabaseConfig;
import io.outpost.store.model.KeyType;
import io.outpost.store.model.Node;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;

/**
 * Export and sync of an offline snapshot from a running Outpost service over HTTP, with the guarantees of the JDBC
 * path: the service writes each folder's copy into a SQLite file ({@link FolderExport}), which is downloaded to a
 * temporary folder and moved into the snapshot by the same {@link FolderTransfer}, one folder per transaction. Sync
 * asks with the validator of the copy it holds, so an unchanged folder costs one 304; for a folder held in a locked
 * tag it asks only for the channels part, so that tag's IOV rows never cross the network or the snapshot twice.
 * The next folder is downloaded while the current one is moved in ({@link Prefetch}).
 */
public final class RemoteSnapshots {
    private final RemoteSource source;
    private final Database snapshot;

    /** @param snapshot the snapshot's database, opened and migrated */
    public RemoteSnapshots(String serviceUrl, Database snapshot) {
        this.source = new RemoteSource(serviceUrl);
        this.snapshot = snapshot;
    }

    /** Writes a new snapshot into the (empty) database. */
    public SnapshotExporter.Result export(SnapshotExporter.Request r, SnapshotExporter.Progress progress) {
        if (!FolderTransfer.coverage(snapshot).isEmpty()) {
            throw StoreException.badArgument("the snapshot database must be empty; use sync to update an existing"
                    + " snapshot");
        }
        List<RemoteSource.Folder> folders = source.folders(r.folderGlob());
        if (folders.isEmpty()) {
            throw StoreException.badArgument("no folder matches '" + r.folderGlob() + "'");
        }
        r.check(folders.stream().map(RemoteSource.Folder::keyType).toList());
        List<Prefetch.Job> jobs = new ArrayList<>();
        for (RemoteSource.Folder f : folders) {
            SnapshotExporter.Range range = r.range(f.path(), f.keyType());
            jobs.add(new Prefetch.Job(FolderExport.Part.FOLDER, r.globalTag(), range.from(), range.to(), f.path(), null));
        }
        long iovs = 0;
        try (Prefetch downloads = new Prefetch(source, jobs)) {
            for (int i = 0; i < folders.size(); i++) {
                try (Prefetch.Download d = downloads.next()) {
                    iovs += apply(d, r.folderGlob(), false, i, folders.size(), progress).iovs();
                }
            }
        }
        return new SnapshotExporter.Result(folders.size(), iovs);
    }

    /** Brings the snapshot up to date for the global tag, range and folders it was exported with. */
    public SnapshotSync.Result sync(SnapshotExporter.Progress progress) {
        List<CoverageRow> rows = FolderTransfer.coverage(snapshot);
        if (rows.isEmpty()) {
            throw StoreException.badArgument("the target is not a snapshot (it records no coverage): export one first");
        }
        CoverageRow first = rows.get(0);
        Map<String, CoverageRow> recorded = new HashMap<>();
        rows.forEach(r -> recorded.put(r.folderPath(), r));
        Map<String, KeyType> keyTypes = new HashMap<>();
        List<String> folders = new ArrayList<>();
        List<String> skipped = new ArrayList<>();
        List<RemoteSource.Folder> listed = source.folders(first.folderGlob());
        listed.forEach(f -> keyTypes.put(f.path(), f.keyType()));
        Map<KeyType, SnapshotExporter.Range> ranges = SnapshotSync.ranges(rows, keyTypes);
        List<Prefetch.Job> jobs = new ArrayList<>();
        for (RemoteSource.Folder f : listed) {
            String path = f.path();
            CoverageRow had = recorded.get(path);
            SnapshotExporter.Range range = had != null ? new SnapshotExporter.Range(had.keyFrom(), had.keyTo())
                    : ranges.get(f.keyType());
            if (range == null) {
                skipped.add(path); // a new folder of a key type the snapshot has no range of
                continue;
            }
            folders.add(path);
            // a folder held in a locked tag: only its channels can have changed, unless the tag itself did
            FolderExport.Part part = had != null && had.tagLocked() ? FolderExport.Part.CHANNELS : FolderExport.Part.FOLDER;
            jobs.add(new Prefetch.Job(part, first.globalTag(), range.from(), range.to(), path,
                    had == null ? null : FolderExport.etag(had.folderTag(), had.sourceGeneration())));
        }
        int copied = 0;
        int unchanged = 0;
        long iovs = 0;
        try (Prefetch downloads = new Prefetch(source, jobs)) {
            for (int i = 0; i < folders.size(); i++) {
                boolean exists = recorded.containsKey(folders.get(i));
                Outcome o;
                try (Prefetch.Download d = downloads.next()) {
                    o = apply(d, first.folderGlob(), exists, i, folders.size(), progress);
                }
                if (o.retag()) {
                    // the global tag now resolves to another tag: copy the folder whole
                    Prefetch.Job asked = jobs.get(i);
                    Prefetch.Job whole = new Prefetch.Job(FolderExport.Part.FOLDER, first.globalTag(), asked.from(),
                            asked.to(), folders.get(i), null);
                    try (Prefetch.Download d = Prefetch.download(source, whole)) {
                        o = apply(d, first.folderGlob(), exists, i, folders.size(), progress);
                    }
                }
                if (o.copied()) {
                    progress.copied(folders.get(i));
                    copied++;
                    iovs += o.iovs();
                } else {
                    unchanged++;
                }
            }
        }
        return new SnapshotSync.Result(copied, unchanged, iovs, List.copyOf(skipped));
    }

    /**
     * What happened to one folder: copied (with its IOV count), or not (not modified, or only its channels
     * refreshed); {@code retag}: the channels part found the folder in another tag, so it must be copied whole.
     */
    private record Outcome(boolean copied, long iovs, boolean retag) {
        static final Outcome UNCHANGED = new Outcome(false, 0, false);
    }

    /**
     * Moves one downloaded part into the snapshot: the whole folder with its coverage row, or, for the channels
     * part of a folder whose tag is unchanged, only its channel rows.
     */
    private Outcome apply(Prefetch.Download d, String glob, boolean folderExists, int index, int total,
                          SnapshotExporter.Progress progress) {
        Prefetch.Job job = d.job();
        RemoteSource.Copy c = d.copy();
        if (c == null) {
            return Outcome.UNCHANGED;
        }
        try (IovStore copy = IovStore.open(new DatabaseConfig("jdbc:sqlite:" + c.file(), null, null, c.prefix(),
                1, 1, null, null))) {
            CoverageRow row = copy.read(conn -> SnapshotCoverage.rows(conn, c.prefix())).get(0);
            Node folder = copy.folder(job.path());
            progress.folder(folder, index, total);
            FolderTransfer transfer = new FolderTransfer(copy, snapshot);
            if (job.part() == FolderExport.Part.CHANNELS) {
                CoverageRow had = transfer.coverage().stream().filter(r -> r.nodeId() == folder.id()).findFirst()
                        .orElseThrow();
                if (!Objects.equals(had.folderTag(), row.folderTag())) {
                    return new Outcome(false, 0, true);
                }
                transfer.refreshChannels(folder);
                return Outcome.UNCHANGED;
            }
            // the copy holds only what the plan needs: plan it as it was planned in the source
            FolderTransfer.SourceState s = transfer.state(folder, row.folderTag() == null ? "HEAD" : job.globalTag());
            FolderTransfer.SourceState asCopied = new FolderTransfer.SourceState(s.plan(), row.sourceGeneration(),
                    row.tagLocked());
            long n = transfer.transfer(asCopied, job.globalTag(), job.from(), job.to(), glob, folderExists,
                    progress::iovs);
            return new Outcome(true, n, false);
        }
    }

    static void deleteTree(Path dir) {
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            // a temporary folder left behind is not worth failing the sync for
        }
    }

    static Path tempDir() {
        try {
            return Files.createTempDirectory("outpost-snapshot-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
