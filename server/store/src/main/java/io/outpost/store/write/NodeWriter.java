package io.outpost.store.write;

import io.outpost.store.StoreException;
import io.outpost.store.db.Database;
import io.outpost.store.model.Channel;
import io.outpost.store.model.KeyType;
import io.outpost.store.model.Names;
import io.outpost.store.model.Node;
import io.outpost.store.model.PayloadSpec;
import io.outpost.store.model.Versioning;
import io.outpost.store.read.Metadata;
import io.outpost.store.schema.SchemaManager;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/** Creates foldersets, folders (with their tables) and channels. */
public final class NodeWriter {
    private final Database db;
    private final Metadata meta;
    private final SchemaManager schema;

    public NodeWriter(Database db, Metadata meta, SchemaManager schema) {
        this.db = db;
        this.meta = meta;
        this.schema = schema;
    }

    /** A new folder's or folderset's path, by the one rule for names ({@link Names}). */
    public static void checkPath(String path) {
        Names.checkPath(path);
    }

    /** The parent folderset of {@code path}, created (with its own parents) when asked to. */
    private Node parentOf(Connection c, String path, boolean createParents, String now) throws SQLException {
        int slash = path.lastIndexOf('/');
        String parentPath = slash == 0 ? "/" : path.substring(0, slash);
        Node parent = meta.findNode(c, parentPath);
        if (parent == null) {
            if (!createParents) {
                throw new StoreException(StoreException.Kind.FOLDER_NOT_FOUND, "parent folderset '" + parentPath
                        + "' does not exist (create it first, or ask for missing parents: the loader's --parents, the write"
                        + " API's \"parents\": true)");
            }
            return createFolderSet(c, parentPath, "", true, now);
        }
        if (parent.isFolder()) {
            throw StoreException.badArgument("'" + parentPath + "' is a folder; only foldersets have children");
        }
        return parent;
    }

    public Node createFolderSet(Connection c, String path, String description, boolean createParents, String now)
            throws SQLException {
        checkPath(path);
        if (meta.findNode(c, path) != null) {
            throw new StoreException(StoreException.Kind.ALREADY_EXISTS, "'" + path + "' already exists");
        }
        Node parent = parentOf(c, path, createParents, now);
        long id = Sequences.next(c, db.dialect(), db.prefix() + "NODES_SEQ", now);
        insertNode(c, id, parent.id(), path, description, false, null, null, null, null, now);
        return meta.findNode(c, id);
    }

    public Node createFolder(Connection c, String path, Versioning versioning, KeyType keyType, PayloadSpec spec,
                             String description, boolean createParents, String now) throws SQLException {
        checkPath(path);
        if (meta.findNode(c, path) != null) {
            throw new StoreException(StoreException.Kind.ALREADY_EXISTS, "'" + path + "' already exists");
        }
        Node parent = parentOf(c, path, createParents, now);
        long id = Sequences.next(c, db.dialect(), db.prefix() + "NODES_SEQ", now);
        String tablePrefix = db.prefix() + String.format("F%04d", id);
        if (!db.dialect().transactionalDdl()) {
            return createFolderTablesFirst(c, id, parent, path, description, versioning, keyType, spec, tablePrefix, now);
        }
        insertNode(c, id, parent.id(), path, description, true, versioning, keyType, spec, tablePrefix, now);
        Node folder = meta.findNode(c, id);
        schema.createFolderTables(c, folder, now);
        return folder;
    }

    /**
     * Where DDL commits (MariaDB): the tables first, then the node row in the caller's transaction, so the folder is
     * visible only with its tables; if the node row fails (e.g. a concurrent creator won), the tables go again.
     */
    private Node createFolderTablesFirst(Connection c, long id, Node parent, String path, String description,
                                         Versioning versioning, KeyType keyType, PayloadSpec spec, String tablePrefix,
                                         String now) throws SQLException {
        Node planned = new Node(id, parent.id(), path.substring(path.lastIndexOf('/') + 1), path, description, true,
                versioning, keyType, spec, tablePrefix, now);
        schema.createFolderTables(c, planned, now);
        try {
            insertNode(c, id, parent.id(), path, description, true, versioning, keyType, spec, tablePrefix, now);
            return meta.findNode(c, id);
        } catch (SQLException | RuntimeException e) {
            schema.dropFolderTablesQuietly(c, planned);
            throw e;
        }
    }

    private void insertNode(Connection c, long id, long parentId, String path, String description, boolean leaf,
                            Versioning v, KeyType k, PayloadSpec spec, String tablePrefix, String now) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + db.prefix() + "NODES (NODE_ID, NODE_PARENTID, "
                + "NODE_NAME, NODE_FULLPATH, NODE_DESCRIPTION, NODE_ISLEAF, NODE_SCHEMA_VERSION, NODE_INSTIME, "
                + "LASTMOD_DATE, FOLDER_VERSIONING, FOLDER_PAYLOADSPEC, FOLDER_KEYTYPE, FOLDER_IOVTABLENAME, "
                + "FOLDER_CHANNELTABLENAME, FOLDER_IOV2TAGTABLENAME) VALUES (?, ?, ?, ?, ?, ?, '2.0.0', ?, ?, ?, ?, ?, ?, ?, ?)")) {
            ps.setLong(1, id);
            ps.setLong(2, parentId);
            ps.setString(3, path.substring(path.lastIndexOf('/') + 1));
            ps.setString(4, path);
            ps.setString(5, description == null ? "" : description);
            ps.setInt(6, leaf ? 1 : 0);
            ps.setString(7, now);
            ps.setString(8, now);
            if (leaf) {
                ps.setInt(9, v.code());
                ps.setString(10, spec.toString());
                ps.setString(11, k.label());
                ps.setString(12, tablePrefix + "_IOVS");
                ps.setString(13, tablePrefix + "_CHANNELS");
                ps.setString(14, v == Versioning.MULTI_VERSION ? tablePrefix + "_IOV2TAG" : null);
            } else {
                ps.setNull(9, java.sql.Types.INTEGER);
                for (int i = 10; i <= 14; i++) {
                    ps.setNull(i, java.sql.Types.VARCHAR);
                }
            }
            ps.executeUpdate();
        }
    }

    public Channel createChannel(Connection c, Node folder, long id, String name, String description)
            throws SQLException {
        if (id < 0 || id > Channel.MAX_ID) {
            throw StoreException.badArgument("channel id " + id + " must be between 0 and " + Channel.MAX_ID);
        }
        if (name != null) {
            Names.checkChannelName(name);
        }
        if (meta.findChannel(c, folder, id) != null) {
            throw new StoreException(StoreException.Kind.ALREADY_EXISTS, "channel " + id + " already exists in '"
                    + folder.path() + "'");
        }
        if (name != null && meta.findChannel(c, folder, name) != null) {
            throw new StoreException(StoreException.Kind.ALREADY_EXISTS, "channel name '" + name
                    + "' is already used in '" + folder.path() + "'");
        }
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + folder.channelTable()
                + " (CHANNEL_ID, LAST_OBJECT_ID, HAS_NEW_DATA, CHANNEL_NAME, DESCRIPTION) VALUES (?, 0, 0, ?, ?)")) {
            ps.setLong(1, id);
            ps.setString(2, name);
            ps.setString(3, description == null ? "" : description);
            ps.executeUpdate();
        }
        return new Channel(id, name, description == null ? "" : description);
    }
}
