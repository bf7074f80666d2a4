package io.outpost.store.export;

import io.outpost.store.StoreException;
import io.outpost.store.model.Node;
import io.outpost.store.read.TagResolver;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What an offline snapshot covers, read from its SNAPSHOT_COVERAGE table: per folder, the key range (of the
 * folder's key type: a time range or a run range) and the layer that was exported. A store over a snapshot checks every read against it, so a question the snapshot
 * cannot answer gets a clear "not covered" instead of an empty answer that looks valid.
 */
public final class SnapshotCoverage {
    private final String globalTag;
    private final Map<Long, CoverageRow> folders;

    private SnapshotCoverage(List<CoverageRow> rows) {
        this.globalTag = rows.get(0).globalTag();
        this.folders = new HashMap<>();
        for (CoverageRow r : rows) {
            folders.put(r.nodeId(), r);
        }
    }

    /** The coverage of the database behind {@code c}, or null when it is not a snapshot (no coverage rows). */
    public static SnapshotCoverage load(Connection c, String prefix) throws SQLException {
        List<CoverageRow> rows = rows(c, prefix);
        return rows.isEmpty() ? null : new SnapshotCoverage(rows);
    }

    public static List<CoverageRow> rows(Connection c, String prefix) throws SQLException {
        List<CoverageRow> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT NODE_ID, FOLDER_PATH, GLOBAL_TAG, FOLDER_TAG, KEY_FROM, "
                + "KEY_TO, FOLDER_GLOB, SOURCE_GENERATION, TAG_LOCKED, EXPORTED_AT FROM " + prefix
                + "SNAPSHOT_COVERAGE ORDER BY FOLDER_PATH"); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.add(new CoverageRow(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getLong(5),
                        rs.getLong(6), rs.getString(7), rs.getString(8), rs.getInt(9) == 1, rs.getString(10)));
            }
        }
        return out;
    }

    /** The distinct key ranges the folders were exported with, e.g. "keys [1, 2] and [5, 9]". */
    public String describeRanges() {
        return "keys " + String.join(" and ", folders.values().stream()
                .map(r -> "[" + r.keyFrom() + ", " + r.keyTo() + "]").distinct().sorted().toList());
    }

    public String globalTag() {
        return globalTag;
    }

    /** Fails unless a read of [t1, t2] in {@code folder} lies inside what the snapshot holds. */
    public void checkRange(Node folder, long t1, long t2) {
        CoverageRow row = folders.get(folder.id());
        if (row == null) {
            throw notCovered("this snapshot does not hold folder '" + folder.path() + "'");
        }
        if (t1 < row.keyFrom() || t2 > row.keyTo()) {
            throw notCovered("this snapshot covers keys [" + row.keyFrom() + ", " + row.keyTo() + "] of '"
                    + folder.path() + "' only; [" + t1 + ", " + t2 + "] reaches outside it");
        }
    }

    /**
     * Fails when reading {@code folder} in {@code tag} would not give what the source gives: only the HEAD of a
     * folder exported as its HEAD can be read as HEAD. Named tags are checked by the store's own tag resolution
     * (the snapshot holds only the tags the global tag needs).
     */
    public void checkTag(Node folder, String tag) {
        CoverageRow row = folders.get(folder.id());
        if (row != null && TagResolver.isHead(tag) && row.folderTag() != null) {
            throw notCovered("this snapshot holds '" + folder.path() + "' in tag '" + row.folderTag()
                    + "' (global tag '" + globalTag + "'), not its HEAD");
        }
    }

    private static StoreException notCovered(String message) {
        return new StoreException(StoreException.Kind.NOT_COVERED, message);
    }
}
