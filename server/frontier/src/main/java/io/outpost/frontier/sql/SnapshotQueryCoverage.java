package io.outpost.frontier.sql;

import io.outpost.frontier.protocol.FrontierException;
import io.outpost.store.db.Database;
import io.outpost.store.export.CoverageRow;
import io.outpost.store.export.SnapshotCoverage;
import io.outpost.store.model.Node;
import io.outpost.store.model.Tag;
import io.outpost.store.model.TagKind;
import io.outpost.store.read.Metadata;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * On a context serving an offline snapshot (a database with SNAPSHOT_COVERAGE rows), refuses Frontier queries whose
 * answer the snapshot cannot give exactly: IOV tables of folders it does not hold, key windows reaching outside
 * [K1, K2] (or with no bound on a side the snapshot cuts), and layers (HEAD, user tag, tag) other than the one it
 * holds. Without this, such a query would quietly return the subset the snapshot holds. On an ordinary database it
 * does nothing. The coverage is read when the servlet is created and again after a sync changed the snapshot
 * ({@code FrontierServlet.reloadSnapshotCoverage()}).
 */
public final class SnapshotQueryCoverage {
    private static final Logger LOG = LoggerFactory.getLogger(SnapshotQueryCoverage.class);
    static final SnapshotQueryCoverage NONE = new SnapshotQueryCoverage(null, Map.of());

    /**
     * A folder the snapshot holds, the layer it holds it in (null: the HEAD, or a single-version folder) and the key
     * range it was exported over (of the folder's key type).
     */
    private record Held(Node folder, Tag tag, long keyFrom, long keyTo) {
    }

    private final Pattern folderTable;
    private final Map<String, Held> tables;

    private SnapshotQueryCoverage(String prefix, Map<String, Held> tables) {
        this.folderTable = prefix == null ? null
                : Pattern.compile(Pattern.quote(prefix.toUpperCase(Locale.ROOT)) + "F[0-9]+_(IOVS|IOV2TAG)");
        this.tables = tables;
    }

    /** The coverage of the context's database; {@link #NONE} when it is not a snapshot. */
    public static SnapshotQueryCoverage load(Database db) {
        // from the primary, as the store reads it: a replica may not have the coverage table yet
        try (Connection c = db.writePool().getConnection()) {
            try {
                List<CoverageRow> rows = SnapshotCoverage.rows(c, db.prefix());
                if (rows.isEmpty()) {
                    return NONE;
                }
                Metadata meta = new Metadata(db.prefix());
                Map<String, Held> tables = new HashMap<>();
                for (CoverageRow r : rows) {
                    Node f = meta.findNode(c, r.nodeId());
                    Tag tag = null;
                    if (r.folderTag() != null) {
                        tag = meta.tags(c, f).stream().filter(t -> t.name().equals(r.folderTag())).findFirst().orElse(null);
                    }
                    Held h = new Held(f, tag, r.keyFrom(), r.keyTo());
                    tables.put(f.iovTable().toUpperCase(Locale.ROOT), h);
                    tables.put(f.iov2TagTable().toUpperCase(Locale.ROOT), h);
                }
                return new SnapshotQueryCoverage(db.prefix(), tables);
            } finally {
                c.rollback();
            }
        } catch (SQLException | RuntimeException e) {
            // no coverage table (not an Outpost schema, or not migrated): an ordinary database
            LOG.debug("no snapshot coverage for {}: {}", db.prefix(), e.toString());
            return NONE;
        }
    }

    public boolean isSnapshot() {
        return folderTable != null;
    }

    /**
     * Fails unless the snapshot answers {@code checked} exactly as its source would. The statement is parsed again
     * (with {@code parser}) only on a snapshot, and only when it reads IOV tables: the admitted statement is kept as
     * text, its literals restored ({@link CheckedStatements}), so its first tree does not hold them.
     */
    public void check(SqlGuard.Checked checked, List<String> binds, SqlParser parser) throws FrontierException {
        if (folderTable == null || checked.dictionary()
                || checked.tables().stream().noneMatch(IovTableReads::isIovTable)) {
            return;
        }
        for (IovTableReads.Read r : IovTableReads.of(parser.parseSelect(checked.sql()), binds)) {
            check(r);
        }
    }

    private void check(IovTableReads.Read r) throws FrontierException {
        Held held = tables.get(r.table());
        if (held == null) {
            if (folderTable.matcher(r.table()).matches()) {
                throw notCovered("this snapshot does not hold the folder of table " + r.table());
            }
            return; // not an IOV table of a folder (a table a context's policy admits by another name)
        }
        long from = r.from() == null ? Long.MIN_VALUE : r.from();
        long to = r.to() == null ? Long.MAX_VALUE : r.to();
        if (r.sinceProbe()) {
            // the last IOV starting at or before t1: exact when t1 is inside, the enclosing read bounds it below
            from = to;
        }
        if (from < held.keyFrom()) {
            throw notCovered(range(held) + (r.from() == null ? "a read of " + r.table() + " without a lower key bound"
                    + " (IOV_UNTIL > t1)" : "the read of " + r.table() + " from key " + r.from()) + " reaches outside it");
        }
        if (to > held.keyTo()) {
            throw notCovered(range(held) + (r.to() == null ? "a read of " + r.table() + " without an upper key bound"
                    + " (IOV_SINCE <= t2)" : "the read of " + r.table() + " up to key " + r.to()) + " reaches outside it");
        }
        checkLayer(held, r);
    }

    /** Only the layer the snapshot holds can be read: other layers' rows were not copied. */
    private void checkLayer(Held held, IovTableReads.Read r) throws FrontierException {
        Node f = held.folder();
        Tag tag = held.tag();
        String holds = tag == null ? "its HEAD" : "tag '" + tag.name() + "'";
        if (r.isTagTable()) {
            if (tag == null || tag.kind() != TagKind.STANDARD) {
                throw notCovered("this snapshot holds '" + f.path() + "' in " + holds + " only: no tag rows");
            }
            if (r.tagId() == null || r.tagId() != tag.id()) {
                throw notCovered("this snapshot holds '" + f.path() + "' in " + holds + " only"
                        + (r.tagId() == null ? ": select it with TAG_ID = " + tag.id() : ", not tag id " + r.tagId()));
            }
            return;
        }
        if (!f.isMultiVersion()) {
            return;
        }
        if (tag != null && tag.kind() == TagKind.STANDARD) {
            // the tag's objects, read through its IOV2TAG rows (COOL's I4 join); not a layer of the folder's own
            if (r.userTagId() != null || !r.blockTables().contains(f.iov2TagTable().toUpperCase(Locale.ROOT))) {
                throw notCovered("this snapshot holds '" + f.path() + "' in " + holds + " only"
                        + (r.userTagId() == null ? "" : r.userTagId() == 0 ? ", not its HEAD" : ", not user tag id "
                        + r.userTagId()) + ": read it through " + f.iov2TagTable() + " (TAG_ID = " + tag.id() + ")");
            }
            return;
        }
        long layer = tag == null ? 0 : tag.id();
        if (r.userTagId() == null || !r.visibleOnly() || r.userTagId() != layer) {
            // only the layer's visible rows were copied: any other row set would quietly lack rows
            throw notCovered("this snapshot holds '" + f.path() + "' in " + holds + " only"
                    + (r.userTagId() != null && r.userTagId() != layer ? ", not "
                    + (r.userTagId() == 0 ? "its HEAD" : "user tag id " + r.userTagId())
                    : ": select it with USER_TAG_ID = " + layer + " AND NEW_HEAD_ID = 0"));
        }
    }

    private static String range(Held held) {
        return "this snapshot covers keys [" + held.keyFrom() + ", " + held.keyTo() + "] of '" + held.folder().path()
                + "' only; ";
    }

    private static FrontierException notCovered(String message) {
        return new FrontierException("Not covered by this offline snapshot: " + message);
    }
}
