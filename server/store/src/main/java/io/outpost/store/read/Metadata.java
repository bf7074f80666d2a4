package io.outpost.store.read;

import io.outpost.store.StoreException;
import io.outpost.store.model.Channel;
import io.outpost.store.model.KeyType;
import io.outpost.store.model.Names;
import io.outpost.store.model.Node;
import io.outpost.store.model.PayloadSpec;
import io.outpost.store.model.Tag;
import io.outpost.store.model.TagKind;
import io.outpost.store.model.TagLock;
import io.outpost.store.model.Versioning;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Reads the folder tree, channels and tags: the small tables every query starts from. */
public final class Metadata {
    private final String prefix;

    public Metadata(String prefix) {
        this.prefix = prefix;
    }

    /** The table prefix of this store. */
    public String prefix() {
        return prefix;
    }

    private static final String NODE_COLS = "NODE_ID, NODE_PARENTID, NODE_NAME, NODE_FULLPATH, NODE_DESCRIPTION, "
            + "NODE_ISLEAF, FOLDER_VERSIONING, FOLDER_KEYTYPE, FOLDER_PAYLOADSPEC, FOLDER_IOVTABLENAME, LASTMOD_DATE";

    public List<Node> nodes(Connection c) throws SQLException {
        List<Node> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT " + NODE_COLS + " FROM " + prefix
                + "NODES ORDER BY NODE_FULLPATH"); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.add(node(rs));
            }
        }
        return out;
    }

    /** The node at {@code path}, or null. */
    public Node findNode(Connection c, String path) throws SQLException {
        if (!Names.couldBeStored(path)) {
            return null;
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT " + NODE_COLS + " FROM " + prefix
                + "NODES WHERE NODE_FULLPATH = ?")) {
            ps.setString(1, path);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? node(rs) : null;
            }
        }
    }

    public Node findNode(Connection c, long id) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT " + NODE_COLS + " FROM " + prefix
                + "NODES WHERE NODE_ID = ?")) {
            ps.setLong(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? node(rs) : null;
            }
        }
    }

    public Node folder(Connection c, String path) throws SQLException {
        Node n = findNode(c, path);
        if (n == null) {
            throw new StoreException(StoreException.Kind.FOLDER_NOT_FOUND, "no folder '" + path + "'");
        }
        if (!n.isFolder()) {
            throw new StoreException(StoreException.Kind.FOLDER_NOT_FOUND, "'" + path
                    + "' is a folderset, not a folder: it holds no IOVs");
        }
        return n;
    }

    private static Node node(ResultSet rs) throws SQLException {
        long parent = rs.getLong(2);
        Long parentId = rs.wasNull() ? null : parent;
        boolean leaf = rs.getInt(6) == 1;
        if (!leaf) {
            return new Node(rs.getLong(1), parentId, rs.getString(3), rs.getString(4), rs.getString(5), false,
                    null, null, null, null, rs.getString(11));
        }
        String iovTable = rs.getString(10);
        return new Node(rs.getLong(1), parentId, rs.getString(3), rs.getString(4), rs.getString(5), true,
                Versioning.fromCode(rs.getInt(7)), KeyType.parse(rs.getString(8)), PayloadSpec.parse(rs.getString(9)),
                iovTable.substring(0, iovTable.length() - "_IOVS".length()), rs.getString(11));
    }

    public List<Channel> channels(Connection c, Node folder) throws SQLException {
        List<Channel> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT CHANNEL_ID, CHANNEL_NAME, DESCRIPTION FROM "
                + folder.channelTable() + " ORDER BY CHANNEL_ID"); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.add(new Channel(rs.getLong(1), rs.getString(2), rs.getString(3)));
            }
        }
        return out;
    }

    public Channel findChannel(Connection c, Node folder, long id) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT CHANNEL_ID, CHANNEL_NAME, DESCRIPTION FROM "
                + folder.channelTable() + " WHERE CHANNEL_ID = ?")) {
            ps.setLong(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? new Channel(rs.getLong(1), rs.getString(2), rs.getString(3)) : null;
            }
        }
    }

    public Channel findChannel(Connection c, Node folder, String name) throws SQLException {
        if (!Names.couldBeStored(name)) {
            return null;
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT CHANNEL_ID, CHANNEL_NAME, DESCRIPTION FROM "
                + folder.channelTable() + " WHERE CHANNEL_NAME = ?")) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? new Channel(rs.getLong(1), rs.getString(2), rs.getString(3)) : null;
            }
        }
    }

    private static final String TAG_COLS = "NODE_ID, TAG_ID, TAG_NAME, TAG_DESCRIPTION, TAG_LOCK_STATUS, TAG_TYPE, SYS_INSTIME";

    public List<Tag> tags(Connection c, Node node) throws SQLException {
        List<Tag> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT " + TAG_COLS + " FROM " + prefix
                + "TAGS WHERE NODE_ID = ? ORDER BY TAG_NAME")) {
            ps.setLong(1, node.id());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(tag(rs));
                }
            }
        }
        return out;
    }

    /** The tag with this name (tag names are unique database-wide), or null. */
    public Tag findTag(Connection c, String name) throws SQLException {
        if (!Names.couldBeStored(name)) {
            return null;
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT " + TAG_COLS + " FROM " + prefix
                + "TAGS WHERE TAG_NAME = ?")) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? tag(rs) : null;
            }
        }
    }

    public Tag findTag(Connection c, long nodeId, long tagId) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT " + TAG_COLS + " FROM " + prefix
                + "TAGS WHERE NODE_ID = ? AND TAG_ID = ?")) {
            ps.setLong(1, nodeId);
            ps.setLong(2, tagId);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? tag(rs) : null;
            }
        }
    }

    /** The child tag related to a parent tag for one child node (one TAG2TAG primary-key lookup), or null. */
    public Long childTagId(Connection c, long parentNode, long parentTag, long childNode) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT CHILD_TAGID FROM " + prefix
                + "TAG2TAG WHERE PARENT_NODEID = ? AND PARENT_TAGID = ? AND CHILD_NODEID = ?")) {
            ps.setLong(1, parentNode);
            ps.setLong(2, parentTag);
            ps.setLong(3, childNode);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : null;
            }
        }
    }

    /** A child tag's id as TAG2TAG holds it, and its TAGS row (null if that row is missing). */
    public record ChildTag(long tagId, Tag tag) {
    }

    /**
     * Every child tag related to one parent tag, by child node id, read in one query (the TAG2TAG primary key's
     * prefix): what {@link #childTagId} and {@link #findTag(Connection, long, long)} give for each child.
     */
    public Map<Long, ChildTag> childTags(Connection c, long parentNode, long parentTag) throws SQLException {
        Map<Long, ChildTag> out = new HashMap<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT r.CHILD_NODEID, r.CHILD_TAGID, t.NODE_ID, t.TAG_ID, "
                + "t.TAG_NAME, t.TAG_DESCRIPTION, t.TAG_LOCK_STATUS, t.TAG_TYPE, t.SYS_INSTIME FROM " + prefix
                + "TAG2TAG r LEFT JOIN " + prefix + "TAGS t ON t.NODE_ID = r.CHILD_NODEID AND t.TAG_ID = r.CHILD_TAGID"
                + " WHERE r.PARENT_NODEID = ? AND r.PARENT_TAGID = ?")) {
            ps.setLong(1, parentNode);
            ps.setLong(2, parentTag);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    long child = rs.getLong(1);
                    long tagId = rs.getLong(2);
                    rs.getLong(3);
                    Tag t = rs.wasNull() ? null : new Tag(rs.getLong(3), rs.getLong(4), rs.getString(5),
                            rs.getString(6), TagLock.fromCode(rs.getInt(7)), TagKind.fromCode(rs.getInt(8)),
                            rs.getString(9));
                    out.put(child, new ChildTag(tagId, t));
                }
            }
        }
        return out;
    }

    private static Tag tag(ResultSet rs) throws SQLException {
        return new Tag(rs.getLong(1), rs.getLong(2), rs.getString(3), rs.getString(4),
                TagLock.fromCode(rs.getInt(5)), TagKind.fromCode(rs.getInt(6)), rs.getString(7));
    }

    /**
     * The folder's modification stamp: its IOV sequence row, which every write through Outpost (and every COOL
     * write) updates in the same transaction. Caches use it as the folder's generation.
     */
    /** How many folders' stamps one statement of {@link #modificationStamps} reads. */
    public static final int STAMPS_PER_QUERY = 200;

    /**
     * The stamps of many folders, by path, as {@link #modificationStamp} gives each: one {@code UNION ALL} statement
     * per {@link #STAMPS_PER_QUERY} folders, so a poll of 10,000 folders is 50 round trips, not 10,000.
     */
    public Map<String, String> modificationStamps(Connection c, List<Node> folders) throws SQLException {
        return modificationStamps(c, folders, STAMPS_PER_QUERY);
    }

    /** As above with {@code perQuery} folders a statement (tests use a small group). */
    public Map<String, String> modificationStamps(Connection c, List<Node> folders, int perQuery) throws SQLException {
        Map<String, String> stamps = new HashMap<>();
        for (int from = 0; from < folders.size(); from += perQuery) {
            List<Node> part = folders.subList(from, Math.min(folders.size(), from + perQuery));
            StringBuilder sql = new StringBuilder();
            for (int i = 0; i < part.size(); i++) {
                sql.append(i == 0 ? "" : " UNION ALL ").append("SELECT ").append(i)
                        .append(", CURRENT_VALUE, LASTMOD_DATE FROM ").append(part.get(i).iovSeqTable());
            }
            try (PreparedStatement ps = c.prepareStatement(sql.toString()); ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    stamps.putIfAbsent(part.get(rs.getInt(1)).path(), rs.getLong(2) + "@" + rs.getString(3));
                }
            }
            for (Node f : part) {
                stamps.putIfAbsent(f.path(), "0@none");
            }
        }
        return stamps;
    }

    public String modificationStamp(Connection c, Node folder) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT CURRENT_VALUE, LASTMOD_DATE FROM " + folder.iovSeqTable());
             ResultSet rs = ps.executeQuery()) {
            return rs.next() ? rs.getLong(1) + "@" + rs.getString(2) : "0@none";
        }
    }
}
