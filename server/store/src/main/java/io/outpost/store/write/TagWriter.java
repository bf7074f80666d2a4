package io.outpost.store.write;

import io.outpost.store.StoreException;
import io.outpost.store.db.Database;
import io.outpost.store.model.Names;
import io.outpost.store.model.Node;
import io.outpost.store.model.Tag;
import io.outpost.store.model.TagKind;
import io.outpost.store.model.TagLock;
import io.outpost.store.read.Metadata;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Tags: standard tags as snapshots of the HEAD (now, or as of a date) copied into IOV2TAG inside the database;
 * user tags created on first store; lock status; parent–child relations between tags of a node and of its
 * parent folderset (COOL's HVS).
 */
public final class TagWriter {
    private final Database db;
    private final Metadata meta;

    public TagWriter(Database db, Metadata meta) {
        this.db = db;
        this.meta = meta;
    }

    static void checkName(String name) {
        if (name != null && name.equalsIgnoreCase("HEAD") || name != null && name.isEmpty()) {
            throw new StoreException(StoreException.Kind.RESERVED_HEAD_TAG, "'" + name + "' is the reserved HEAD:"
                    + " it is defined in every folder and cannot be created, deleted or related");
        }
        Names.checkTagName(Names.Kind.TAG, name);
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

    /**
     * The user tag to store into, created if new. As in COOL: a locked tag of the folder refuses (TAG_LOCKED,
     * whatever its kind); a tag holding a snapshot, or a tag of another node, is taken (ALREADY_EXISTS); an
     * empty tag of the folder (made by a relation, or emptied by deleteTag) becomes the user tag.
     */
    public Tag userTagForStore(Connection c, Node folder, String name, String now) throws SQLException {
        Tag t = meta.findTag(c, name);
        if (t == null) {
            return createTag(c, folder, name, "user tag", TagKind.USER, now);
        }
        if (t.nodeId() != folder.id()) {
            throw new StoreException(StoreException.Kind.ALREADY_EXISTS, "tag '" + name
                    + "' exists in another node, not in '" + folder.path() + "'");
        }
        if (t.lock() == TagLock.LOCKED) {
            throw new StoreException(StoreException.Kind.TAG_LOCKED, "tag '" + name + "' is locked");
        }
        if (t.kind() != TagKind.USER) {
            if (t.kind() == TagKind.FOLDERSET || hasIovs(c, folder, t)) {
                throw new StoreException(StoreException.Kind.ALREADY_EXISTS, "tag '" + name
                        + "' exists and is not a user tag of '" + folder.path() + "'");
            }
            return retype(c, t, TagKind.USER, null);
        }
        return t;
    }

    /** Snapshot of the current HEAD into a standard tag, copied inside the database in one statement. */
    public Tag tagCurrentHead(Connection c, Node folder, String name, String description, String now)
            throws SQLException {
        return tagHead(c, folder, name, description, null, now);
    }

    /**
     * Snapshot of the HEAD as it was at {@code asOf} (a COOL time string): rows inserted by then that are still
     * visible, or were hidden by a row inserted after it.
     */
    public Tag tagHeadAsOfDate(Connection c, Node folder, String name, String description, String asOf, String now)
            throws SQLException {
        return tagHead(c, folder, name, description, asOf, now);
    }

    /**
     * COOL's tagCurrentHead / tagHeadAsOfDate, with its checks in its order: single-version folder, HEAD,
     * nothing to tag (the name stays free), a tag that already holds IOVs or belongs elsewhere, a locked tag.
     * An existing empty tag of the folder (e.g. made by createTagRelation) is filled.
     */
    private Tag tagHead(Connection c, Node folder, String name, String description, String asOf, String now)
            throws SQLException {
        requireMultiVersion(folder, "tag");
        checkName(name);
        FolderLock lock = FolderLock.acquire(c, db.dialect(), folder);
        String iovs = folder.iovTable();
        String where = asOf == null ? " FROM " + iovs + " I WHERE I.USER_TAG_ID = 0 AND I.NEW_HEAD_ID = 0"
                : " FROM " + iovs + " I WHERE I.USER_TAG_ID = 0 AND I.SYS_INSTIME <= ? AND (I.NEW_HEAD_ID = 0"
                + " OR EXISTS (SELECT 1 FROM " + iovs + " O WHERE O.OBJECT_ID = I.NEW_HEAD_ID AND O.SYS_INSTIME > ?))";
        try (PreparedStatement ps = c.prepareStatement("SELECT COUNT(*)" + where)) {
            if (asOf != null) {
                ps.setString(1, asOf);
                ps.setString(2, asOf);
            }
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                if (rs.getLong(1) == 0) {
                    throw new StoreException(StoreException.Kind.TAG_NOT_CREATED, "tag '" + name + "' not created:"
                            + " the HEAD of '" + folder.path() + "' " + (asOf == null ? "has" : "had at " + asOf)
                            + " no IOVs to tag");
                }
            }
        }
        Tag t = meta.findTag(c, name);
        if (t == null) {
            t = createTag(c, folder, name, description, TagKind.STANDARD, now);
        } else {
            if (t.nodeId() != folder.id() || t.kind() == TagKind.FOLDERSET || hasIovs(c, folder, t)) {
                throw new StoreException(StoreException.Kind.ALREADY_EXISTS, "tag '" + name + "' already exists"
                        + (t.nodeId() != folder.id() ? " in another node" : " and holds IOVs")
                        + " (delete it first to tag again)");
            }
            if (t.lock() != TagLock.UNLOCKED) {
                throw new StoreException(StoreException.Kind.TAG_LOCKED, "cannot tag with '" + name
                        + "': the tag is locked");
            }
            t = retype(c, t, TagKind.STANDARD, description);
        }
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + folder.iov2TagTable()
                + " (TAG_ID, OBJECT_ID, CHANNEL_ID, IOV_SINCE, IOV_UNTIL, SYS_INSTIME) SELECT ?, I.OBJECT_ID,"
                + " I.CHANNEL_ID, I.IOV_SINCE, I.IOV_UNTIL, ?" + where)) {
            ps.setLong(1, t.id());
            ps.setString(2, now);
            if (asOf != null) {
                ps.setString(3, asOf);
                ps.setString(4, asOf);
            }
            ps.executeUpdate();
        }
        lock.release(now);
        return t;
    }

    /** Lock status of a tag found by name alone (the tag's own node). */
    public Tag setLock(Connection c, String name, TagLock lock) throws SQLException {
        return setLock(c, requireTag(c, name), lock);
    }

    /** COOL's setTagLockStatus on a node: the tag must be one of that node's own tags (else TAG_NOT_FOUND). */
    public Tag setLock(Connection c, Node node, String name, TagLock lock) throws SQLException {
        checkName(name);
        return setLock(c, requireTag(c, node, name), lock);
    }

    private Tag setLock(Connection c, Tag t, TagLock lock) throws SQLException {
        if (lock != TagLock.LOCKED) {
            String holder = new io.outpost.store.globaltag.FrozenFolders(db.prefix()).frozenHolderOf(c, t.name(), null);
            if (holder != null) {
                throw new StoreException(StoreException.Kind.TAG_LOCKED, "tag '" + t.name() + "' is part of the locked"
                        + " global tag '" + holder + "': unlock the global tag itself (outpost-loader globaltag lock "
                        + holder + " --status unlocked) to change it");
            }
        }
        // the folder's writer lock before the tag row, in the order stores and deleteTag take them
        touchNode(c, t.nodeId());
        try (PreparedStatement ps = c.prepareStatement("UPDATE " + db.prefix()
                + "TAGS SET TAG_LOCK_STATUS = ? WHERE NODE_ID = ? AND TAG_ID = ?")) {
            ps.setInt(1, lock.code());
            ps.setLong(2, t.nodeId());
            ps.setLong(3, t.id());
            ps.executeUpdate();
        }
        return meta.findTag(c, t.nodeId(), t.id());
    }

    /**
     * Relates {@code childName} (an existing child tag found by name: its node is the child node) to
     * {@code parentName}. Kept for callers that know only the tag names.
     */
    public void createRelation(Connection c, String parentName, String childName, String now) throws SQLException {
        Tag child = requireTag(c, childName);
        createRelation(c, meta.findNode(c, child.nodeId()), parentName, childName, now);
    }

    /**
     * COOL's createTagRelation on {@code childNode}: relates its tag {@code childName} to {@code parentName}, a
     * tag of the parent folderset. Missing tags are created as COOL does (the child empty: a folder's reads in
     * it find nothing until tagCurrentHead fills it). One child tag per parent tag and child node.
     */
    public void createRelation(Connection c, Node childNode, String parentName, String childName, String now)
            throws SQLException {
        checkName(parentName);
        checkName(childName);
        if (parentName.equals(childName)) {
            throw new StoreException(StoreException.Kind.INVALID_TAG_RELATION, "tag '" + childName
                    + "' cannot be its own parent");
        }
        if (childNode.parentId() == null) {
            throw new StoreException(StoreException.Kind.INVALID_TAG_RELATION, "the root folderset has no parent"
                    + " to relate tag '" + childName + "' to");
        }
        if (childNode.isFolder() && !childNode.isMultiVersion()) {
            requireMultiVersion(childNode, "relate tags in");
        }
        Node parentNode = meta.findNode(c, childNode.parentId());
        Tag parent = meta.findTag(c, parentName);
        // COOL would create the missing tag in this node, which a tag of that name elsewhere forbids: TagExists
        if (parent != null && parent.nodeId() != parentNode.id()) {
            throw new StoreException(StoreException.Kind.ALREADY_EXISTS, "tag '" + parentName
                    + "' already exists in another node, not in '" + parentNode.path() + "', the parent of '"
                    + childNode.path() + "' (tag names are unique in the whole database)");
        }
        Tag child = meta.findTag(c, childName);
        if (child != null && child.nodeId() != childNode.id()) {
            throw new StoreException(StoreException.Kind.ALREADY_EXISTS, "tag '" + childName
                    + "' already exists in another node, not in '" + childNode.path() + "' (tag names are unique in"
                    + " the whole database)");
        }
        if (parent != null && parent.lock() == TagLock.LOCKED) {
            throw new StoreException(StoreException.Kind.TAG_LOCKED, "parent tag '" + parentName + "' is locked");
        }
        if (parent != null && meta.childTagId(c, parentNode.id(), parent.id(), childNode.id()) != null) {
            throw new StoreException(StoreException.Kind.TAG_RELATION_EXISTS, "tag '" + parentName
                    + "' already has a child tag for '" + childNode.path() + "'");
        }
        if (parent == null) {
            parent = createTag(c, parentNode, parentName, "", TagKind.FOLDERSET, now);
        }
        if (child == null) {
            child = createTag(c, childNode, childName, "", childNode.isFolder() ? TagKind.STANDARD : TagKind.FOLDERSET,
                    now);
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

    /**
     * COOL's deleteTag: drops a folder tag's snapshot rows and user-tag IOVs; the tag itself is dropped too
     * unless a tag relation still uses it (it then stays, empty). Refused for HEAD, single-version folders,
     * a tag of another node, and a locked or partially locked tag. Returns whether the name was freed.
     */
    public boolean deleteTag(Connection c, Node folder, String name, String now) throws SQLException {
        checkName(name);
        if (!folder.isFolder()) {
            throw StoreException.badArgument("'" + folder.path() + "' is a folderset: deleteTag applies to a"
                    + " folder's tags (a folderset's tags go with their relations)");
        }
        requireMultiVersion(folder, "delete tags of");
        // the folder's writer lock first, as every writer takes it: then the lock status read below stays true
        FolderLock lock = FolderLock.acquire(c, db.dialect(), folder);
        Tag t = requireTag(c, folder, name);
        if (t.lock() != TagLock.UNLOCKED) {
            throw new StoreException(StoreException.Kind.TAG_LOCKED, "cannot delete tag '" + name
                    + "': the tag is " + (t.lock() == TagLock.LOCKED ? "locked" : "partially locked"));
        }
        try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + folder.iov2TagTable() + " WHERE TAG_ID = ?")) {
            ps.setLong(1, t.id());
            ps.executeUpdate();
        }
        // A channel whose last-object pointer is a row about to go points to its newest remaining row instead.
        try (PreparedStatement ps = c.prepareStatement("UPDATE " + folder.channelTable() + " SET LAST_OBJECT_ID ="
                + " COALESCE((SELECT MAX(I.OBJECT_ID) FROM " + folder.iovTable() + " I WHERE I.CHANNEL_ID = "
                + folder.channelTable() + ".CHANNEL_ID AND I.USER_TAG_ID <> ?), 0) WHERE LAST_OBJECT_ID IN"
                + " (SELECT OBJECT_ID FROM " + folder.iovTable() + " WHERE USER_TAG_ID = ?)")) {
            ps.setLong(1, t.id());
            ps.setLong(2, t.id());
            ps.executeUpdate();
        }
        try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + folder.iovTable() + " WHERE USER_TAG_ID = ?")) {
            ps.setLong(1, t.id());
            ps.executeUpdate();
        }
        boolean related;
        try (PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM " + db.prefix() + "TAG2TAG WHERE"
                + " (PARENT_NODEID = ? AND PARENT_TAGID = ?) OR (CHILD_NODEID = ? AND CHILD_TAGID = ?)")) {
            ps.setLong(1, folder.id());
            ps.setLong(2, t.id());
            ps.setLong(3, folder.id());
            ps.setLong(4, t.id());
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                related = rs.getLong(1) > 0;
            }
        }
        if (!related) {
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + db.prefix()
                    + "TAGS WHERE NODE_ID = ? AND TAG_ID = ?")) {
                ps.setLong(1, folder.id());
                ps.setLong(2, t.id());
                ps.executeUpdate();
            }
        }
        lock.release(now);
        return !related;
    }

    /** Whether a folder's tag holds anything: snapshot rows or user-tag IOVs. */
    private boolean hasIovs(Connection c, Node folder, Tag t) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM " + folder.iov2TagTable() + " WHERE TAG_ID = ?"
                + " UNION ALL SELECT 1 FROM " + folder.iovTable() + " WHERE USER_TAG_ID = ?")) {
            ps.setMaxRows(1);
            ps.setLong(1, t.id());
            ps.setLong(2, t.id());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    /** Gives an empty tag the kind its first content needs (and a description, when one is given). */
    private Tag retype(Connection c, Tag t, TagKind kind, String description) throws SQLException {
        boolean describe = description != null && !description.isEmpty();
        try (PreparedStatement ps = c.prepareStatement("UPDATE " + db.prefix() + "TAGS SET TAG_TYPE = ?"
                + (describe ? ", TAG_DESCRIPTION = ?" : "") + " WHERE NODE_ID = ? AND TAG_ID = ?")) {
            int i = 1;
            ps.setInt(i++, kind.code());
            if (describe) {
                ps.setString(i++, description);
            }
            ps.setLong(i++, t.nodeId());
            ps.setLong(i, t.id());
            ps.executeUpdate();
        }
        return meta.findTag(c, t.nodeId(), t.id());
    }

    private Tag requireTag(Connection c, Node node, String name) throws SQLException {
        Tag t = meta.findTag(c, name);
        if (t == null || t.nodeId() != node.id()) {
            throw new StoreException(StoreException.Kind.TAG_NOT_FOUND, "no tag '" + name + "' in '" + node.path()
                    + "'" + (t == null ? "" : " (the tag belongs to another node)"));
        }
        return t;
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

    private static void requireMultiVersion(Node folder, String what) {
        if (!folder.isMultiVersion()) {
            throw new StoreException(StoreException.Kind.FOLDER_IS_SINGLE_VERSION, "'" + folder.path()
                    + "' is single-version: cannot " + what + " it (only multi-version folders have tags)");
        }
    }
}
