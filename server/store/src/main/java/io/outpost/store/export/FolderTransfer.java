package io.outpost.store.export;

import io.outpost.store.Failures;
import io.outpost.store.IovStore;
import io.outpost.store.StoreException;
import io.outpost.store.db.Database;
import io.outpost.store.db.SysTime;
import io.outpost.store.model.Node;
import io.outpost.store.model.Tag;
import io.outpost.store.model.TagLock;
import io.outpost.store.read.Metadata;
import io.outpost.store.schema.SchemaManager;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongConsumer;

/**
 * Moves folders from a source store into a snapshot database, one folder per target transaction: a folder is
 * in the snapshot whole, with its coverage row, or not changed at all. Shared by export and sync.
 */
final class FolderTransfer {
    private final IovStore source;
    private final Database target;
    private final Metadata sourceMeta;
    private final FolderCopier copier;

    FolderTransfer(IovStore source, Database target) {
        String prefix = source.database().prefix();
        if (!prefix.equals(target.prefix())) {
            throw StoreException.badArgument("the snapshot must use the source's table prefix '" + prefix + "', not '"
                    + target.prefix() + "'");
        }
        this.source = source;
        this.target = target;
        this.sourceMeta = new Metadata(prefix);
        this.copier = new FolderCopier(prefix, new SchemaManager(target));
    }

    /** The source's folders whose path matches the glob (e.g. {@code /DET/**}), by path. */
    List<Node> folders(String glob) {
        PathMatcher m = FileSystems.getDefault().getPathMatcher("glob:" + glob);
        List<Node> out = new ArrayList<>();
        for (Node n : source.listNodes()) {
            if (n.isFolder() && m.matches(Path.of(n.path()))) {
                out.add(n);
            }
        }
        return out;
    }

    /** What the source's folder looks like now: the plan, its generation, and whether its tag is locked. */
    record SourceState(FolderPlan plan, String generation, boolean tagLocked) {
        String folderTagName() {
            Tag t = plan.folderTag();
            return t == null ? null : t.name();
        }
    }

    SourceState state(Node folder, String globalTag) {
        return source.read(c -> {
            FolderPlan plan = FolderPlan.of(c, sourceMeta, folder, globalTag);
            Tag t = plan.folderTag();
            return new SourceState(plan, sourceMeta.modificationStamp(c, folder), t != null && t.lock() == TagLock.LOCKED);
        });
    }

    /**
     * Copies one folder in one target transaction, recording its coverage. The generation recorded is the one
     * read before the rows, so a write racing the copy makes the next sync copy the folder again, never less.
     */
    long transfer(SourceState state, String globalTag, long from, long to, String glob, boolean folderExists,
                  LongConsumer progress) {
        return transfer(state, globalTag, from, to, glob, folderExists, true, progress);
    }

    /** As above; without {@code withIovs} the folder's IOV rows are left out (see {@link FolderCopier#copy}). */
    long transfer(SourceState state, String globalTag, long from, long to, String glob, boolean folderExists,
                  boolean withIovs, LongConsumer progress) {
        Node f = state.plan().folder();
        return source.read(src -> {
            try (Connection dst = target.writePool().getConnection()) {
                try {
                    target.dialect().beginWrite(dst, target.prefix());
                    long n = copier.copy(src, dst, state.plan(), from, to, folderExists, withIovs, progress);
                    FolderCopier.delete(dst, target.prefix() + "SNAPSHOT_COVERAGE", "NODE_ID = ?", f.id());
                    insertCoverage(dst, new CoverageRow(f.id(), f.path(), globalTag, state.folderTagName(), from, to, glob,
                            state.generation(), state.tagLocked(), SysTime.now(Clock.systemUTC())));
                    dst.commit();
                    return n;
                } catch (SQLException | RuntimeException e) {
                    dst.rollback();
                    throw e;
                }
            } catch (SQLException e) {
                throw Failures.translate(e);
            }
        });
    }

    /**
     * Replaces only the folder's channel rows (one transaction): for a folder kept in a locked tag, whose IOV rows
     * are never copied again, but whose channels (listed, selected by name, counted by at-time reads) may grow.
     */
    void refreshChannels(Node folder) {
        source.read(src -> {
            try (Connection dst = target.writePool().getConnection()) {
                try {
                    target.dialect().beginWrite(dst, target.prefix());
                    FolderCopier.delete(dst, folder.channelTable(), "1 = 1");
                    FolderCopier.copyRows(src, dst, folder.channelTable(), "1 = 1");
                    dst.commit();
                    return null;
                } catch (SQLException | RuntimeException e) {
                    dst.rollback();
                    throw e;
                }
            } catch (SQLException e) {
                throw Failures.translate(e);
            }
        });
    }

    private void insertCoverage(Connection dst, CoverageRow r) throws SQLException {
        try (PreparedStatement ps = dst.prepareStatement("INSERT INTO " + target.prefix() + "SNAPSHOT_COVERAGE (NODE_ID, "
                + "FOLDER_PATH, GLOBAL_TAG, FOLDER_TAG, KEY_FROM, KEY_TO, FOLDER_GLOB, SOURCE_GENERATION, TAG_LOCKED, "
                + "EXPORTED_AT) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
            ps.setLong(1, r.nodeId());
            ps.setString(2, r.folderPath());
            ps.setString(3, r.globalTag());
            ps.setString(4, r.folderTag());
            ps.setLong(5, r.keyFrom());
            ps.setLong(6, r.keyTo());
            ps.setString(7, r.folderGlob());
            ps.setString(8, r.sourceGeneration());
            ps.setInt(9, r.tagLocked() ? 1 : 0);
            ps.setString(10, r.exportedAt());
            ps.executeUpdate();
        }
    }

    /** The coverage rows the snapshot holds now. */
    List<CoverageRow> coverage() {
        return coverage(target);
    }

    static List<CoverageRow> coverage(Database target) {
        try (Connection c = target.readPool().getConnection()) {
            try {
                return SnapshotCoverage.rows(c, target.prefix());
            } finally {
                c.rollback();
            }
        } catch (SQLException e) {
            throw Failures.translate(e);
        }
    }
}
