package io.outpost.store.globaltag;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The FROZEN_GLOBAL_TAGS table: which folders a locked global tag serves, as recorded when it was locked. A global
 * tag without rows is not frozen (never locked, or unlocked since): it serves every folder of the database.
 */
public final class FrozenFolders {
    /** One folder of a frozen global tag: its own tag (null for a single-version folder) and when it was frozen. */
    public record Member(long nodeId, String path, String folderTag, String lockedAt) {
        public boolean singleVersion() {
            return folderTag == null;
        }
    }

    private final String table;

    public FrozenFolders(String prefix) {
        this.table = prefix + "FROZEN_GLOBAL_TAGS";
    }

    /** The folders {@code globalTag} was frozen with, by node id in path order; empty if it is not frozen. */
    public Map<Long, Member> members(Connection c, String globalTag) throws SQLException {
        Map<Long, Member> out = new LinkedHashMap<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT NODE_ID, FOLDER_PATH, FOLDER_TAG, LOCKED_AT FROM " + table
                + " WHERE GLOBAL_TAG = ? ORDER BY FOLDER_PATH")) {
            ps.setString(1, globalTag);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.put(rs.getLong(1), new Member(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getString(4)));
                }
            }
        }
        return out;
    }

    /**
     * Why the folder {@code nodeId} is not read in {@code globalTag}: null when it is (the global tag is not frozen, or
     * was frozen with the folder), else when the global tag was locked. Two primary-key reads, whatever its size.
     */
    public String lockedWithout(Connection c, String globalTag, long nodeId) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM " + table
                + " WHERE GLOBAL_TAG = ? AND NODE_ID = ?")) {
            ps.setString(1, globalTag);
            ps.setLong(2, nodeId);
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    return null;
                }
            }
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT LOCKED_AT FROM " + table + " WHERE GLOBAL_TAG = ?")) {
            ps.setMaxRows(1);
            ps.setString(1, globalTag);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        }
    }

    /**
     * A frozen global tag other than {@code except} (null: any) that holds {@code folderTag} as one of its folders'
     * tags, or null.
     */
    public String frozenHolderOf(Connection c, String folderTag, String except) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT GLOBAL_TAG FROM " + table
                + " WHERE FOLDER_TAG = ? AND GLOBAL_TAG <> ?")) {
            ps.setMaxRows(1);
            ps.setString(1, folderTag);
            ps.setString(2, except == null ? "" : except);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        }
    }

    /**
     * When the frozen global tags holding {@code folderTag} for the folder {@code nodeId} were locked (COOL time
     * strings): while one of them stays locked, the tag's rows cannot change.
     */
    public java.util.List<String> lockTimes(Connection c, long nodeId, String folderTag) throws SQLException {
        java.util.List<String> out = new java.util.ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT LOCKED_AT FROM " + table
                + " WHERE NODE_ID = ? AND FOLDER_TAG = ?")) {
            ps.setLong(1, nodeId);
            ps.setString(2, folderTag);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
            }
        }
        return out;
    }

    void add(Connection c, String globalTag, Member m) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + table
                + " (GLOBAL_TAG, NODE_ID, FOLDER_PATH, FOLDER_TAG, LOCKED_AT) VALUES (?, ?, ?, ?, ?)")) {
            ps.setString(1, globalTag);
            ps.setLong(2, m.nodeId());
            ps.setString(3, m.path());
            ps.setString(4, m.folderTag());
            ps.setString(5, m.lockedAt());
            ps.executeUpdate();
        }
    }

    int remove(Connection c, String globalTag) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + table + " WHERE GLOBAL_TAG = ?")) {
            ps.setString(1, globalTag);
            return ps.executeUpdate();
        }
    }
}
