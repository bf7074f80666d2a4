package io.outpost.store.write;

import io.outpost.store.StoreException;
import io.outpost.store.db.Database;
import io.outpost.store.model.Node;
import io.outpost.store.model.Tag;
import io.outpost.store.model.TagKind;
import io.outpost.store.model.TagLock;
import io.outpost.store.read.Metadata;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.regex.Pattern;

/**
 * Tags: standard tags as snapshots of the HEAD (now, or as of a date) copied into IOV2TAG inside the database;
 * user tags created on first store; lock status; parent–child relations between tags of a node and of its
 * parent folderset (COOL's HVS).
 */
public final class TagWriter {
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.-]{0,254}");

    private final Database db;
    private final Metadata meta;

    public TagWriter(Database db, Metadata meta) {
        this.db = db;
        this.meta = meta;
    }

    static void checkName(String name) {
        if (name == null || !NAME.matcher(name).matches() || name.equals("HEAD")) {
            throw StoreException.badArgument("tag name '" + name + "' must be letters, digits, '_', '.', '-'"
                    + " (HEAD is reserved)");
        }
    }

    Tag createTag(Connection c, Node node, String name, String description, TagKind kind, String now)
            throws SQLException {
        checkName(name);
        Tag existing = meta.findTag(c, name);
        if (existing != null) {
            throw new StoreException(StoreException.Kind.ALREADY_EXISTS, "tag '" + name
                    + "' already exists (tag names are unique in the whole database)");
        }
        long id = Sequences.next(c, db.dialect(), db.prefix() + "TAGS_SEQ", now);
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + db.prefix() + "TAGS (NODE_ID, TAG_ID, TAG_NAME, "
                + "TAG_LOCK_STATUS, TAG_DESCRIPTION, TAG_TYPE, SYS_INSTIME) VALUES (?, ?, ?, 0, ?, ?, ?)")) {
            ps.setLong(1, node.id());
            ps.setLong(2, id);
            ps.setString(3, name);
            ps.setString(4, description == null ? "" : description);
            ps.setInt(5, kind.code());
            ps.setString(6, now);
            ps.executeUpdate();
        }
        return meta.findTag(c, node.id(), id);
    }

    /** The user tag to store into, created if new; fails if the name is taken otherwise or the tag is locked. */
    public Tag userTagForStore(Connection c, Node folder, String name, String now) throws SQLException {
        Tag t = meta.findTag(c, name);
        if (t == null) {
            return createTag(c, folder, name, "user tag", TagKind.USER, now);
        }
        if (t.nodeId() != folder.id() || t.kind() != TagKind.USER) {
            throw new StoreException(StoreException.Kind.ALREADY_EXISTS, "tag '" + name
                    + "' exists and is not a user tag of '" + folder.path() + "'");
        }
        if (t.lock() == TagLock.LOCKED) {
            throw new StoreException(StoreException.Kind.TAG_LOCKED, "user tag '" + name + "' is locked");
        }
        return t;
    }

    /** Snapshot of the current HEAD into a new standard tag, copied inside the database in one statement. */
    public Tag tagCurrentHead(Connection c, Node folder, String name, String description, String now)
            throws SQLException {
        requireMultiVersion(folder);
        FolderLock lock = FolderLock.acquire(c, db.dialect(), folder);
        Tag t = createTag(c, folder, name, description, TagKind.STANDARD, now);
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + folder.iov2TagTable()
                + " (TAG_ID, OBJECT_ID, CHANNEL_ID, IOV_SINCE, IOV_UNTIL, SYS_INSTIME) SELECT ?, OBJECT_ID, CHANNEL_ID,"
                + " IOV_SINCE, IOV_UNTIL, ? FROM " + folder.iovTable() + " WHERE USER_TAG_ID = 0 AND NEW_HEAD_ID = 0")) {
            ps.setLong(1, t.id());
            ps.setString(2, now);
            ps.executeUpdate();
        }
        lock.release(now);
        return t;
    }

    /**
     * Snapshot of the HEAD as it was at {@code asOf} (a COOL time string): rows inserted by then that are still
     * visible, or were hidden by a row inserted after it.
     */
    public Tag tagHeadAsOfDate(Connection c, Node folder, String name, String description, String asOf, String now)
            throws SQLException {
        requireMultiVersion(folder);
        FolderLock lock = FolderLock.acquire(c, db.dialect(), folder);
        Tag t = createTag(c, folder, name, description, TagKind.STANDARD, now);
        String iovs = folder.iovTable();
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + folder.iov2TagTable()
                + " (TAG_ID, OBJECT_ID, CHANNEL_ID, IOV_SINCE, IOV_UNTIL, SYS_INSTIME) SELECT ?, I.OBJECT_ID, I.CHANNEL_ID,"
                + " I.IOV_SINCE, I.IOV_UNTIL, ? FROM " + iovs + " I WHERE I.USER_TAG_ID = 0 AND I.SYS_INSTIME <= ?"
                + " AND (I.NEW_HEAD_ID = 0 OR EXISTS (SELECT 1 FROM " + iovs + " O WHERE O.OBJECT_ID = I.NEW_HEAD_ID"
                + " AND O.SYS_INSTIME > ?))")) {
            ps.setLong(1, t.id());
            ps.setString(2, now);
            ps.setString(3, asOf);
            ps.setString(4, asOf);
            ps.executeUpdate();
        }
        lock.release(now);
        return t;
    }

    public Tag setLock(Connection c, String name, TagLock lock) throws SQLException {
        Tag t = requireTag(c, name);
        try (PreparedStatement ps = c.prepareStatement("UPDATE " + db.prefix()
                + "TAGS SET TAG_LOCK_STATUS = ? WHERE NODE_ID = ? AND TAG_ID = ?")) {
            ps.setInt(1, lock.code());
            ps.setLong(2, t.nodeId());
            ps.setLong(3, t.id());
            ps.executeUpdate();
        }
        touchNode(c, t.nodeId());
        return meta.findTag(c, t.nodeId(), t.id());
    }

    /**
     * Relates {@code parentName} (a tag of the child's parent folderset, created if missing) to {@code childName}
     * (an existing tag of a node). One child tag per parent tag and child node.
     */
    public void createRelation(Connection c, String parentName, String childName, String now) throws SQLException {
        Tag child = requireTag(c, childName);
        Node childNode = meta.findNode(c, child.nodeId());
        if (childNode.parentId() == null) {
            throw StoreException.badArgument("the root folderset has no parent to relate tag '" + childName + "' to");
        }
        Node parentNode = meta.findNode(c, childNode.parentId());
        if (parentName.equals(childName)) {
            throw StoreException.badArgument("a tag cannot be its own parent");
        }
        Tag parent = meta.findTag(c, parentName);
        if (parent == null) {
            parent = createTag(c, parentNode, parentName, "", TagKind.FOLDERSET, now);
        } else if (parent.nodeId() != parentNode.id()) {
            throw StoreException.badArgument("tag '" + parentName + "' belongs to another node, not to '"
                    + parentNode.path() + "', the parent of '" + childNode.path() + "'");
        }
        if (parent.lock() == TagLock.LOCKED) {
            throw new StoreException(StoreException.Kind.TAG_LOCKED, "parent tag '" + parentName + "' is locked");
        }
        if (meta.childTagId(c, parentNode.id(), parent.id(), childNode.id()) != null) {
            throw new StoreException(StoreException.Kind.ALREADY_EXISTS, "tag '" + parentName
                    + "' already has a child tag for '" + childNode.path() + "'");
        }
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + db.prefix() + "TAG2TAG (PARENT_NODEID, "
                + "PARENT_TAGID, CHILD_NODEID, CHILD_TAGID, SYS_INSTIME) VALUES (?, ?, ?, ?, ?)")) {
            ps.setLong(1, parentNode.id());
            ps.setLong(2, parent.id());
            ps.setLong(3, childNode.id());
            ps.setLong(4, child.id());
            ps.setString(5, now);
            ps.executeUpdate();
        }
        touchNode(c, childNode.id());
    }

    private Tag requireTag(Connection c, String name) throws SQLException {
        Tag t = meta.findTag(c, name);
        if (t == null) {
            throw new StoreException(StoreException.Kind.TAG_NOT_FOUND, "no tag '" + name + "'");
        }
        return t;
    }

    /** Tag changes alter what reads of a folder return: bump the folder's modification stamp. */
    private void touchNode(Connection c, long nodeId) throws SQLException {
        Node n = meta.findNode(c, nodeId);
        if (n != null && n.isFolder()) {
            FolderLock.acquire(c, db.dialect(), n).release(io.outpost.store.db.SysTime.now(java.time.Clock.systemUTC()));
        }
    }

    private static void requireMultiVersion(Node folder) {
        if (!folder.isMultiVersion()) {
            throw StoreException.badArgument("'" + folder.path() + "' is single-version: only multi-version folders"
                    + " have tags");
        }
    }
}
