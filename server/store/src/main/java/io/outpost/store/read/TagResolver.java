package io.outpost.store.read;

import io.outpost.store.StoreException;
import io.outpost.store.db.Layer;
import io.outpost.store.globaltag.FrozenFolders;
import io.outpost.store.model.Node;
import io.outpost.store.model.Tag;
import io.outpost.store.model.TagKind;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Turns a tag name into the layer a read of one folder uses. A tag of an ancestor folderset is followed down
 * the path through TAG2TAG, one primary-key lookup per level, as COOL's resolveTag does.
 */
public final class TagResolver {
    private final Metadata meta;

    private final FrozenFolders frozen;

    public TagResolver(Metadata meta) {
        this.meta = meta;
        this.frozen = new FrozenFolders(meta.prefix());
    }

    public static boolean isHead(String tag) {
        return tag == null || tag.isEmpty() || tag.equals("HEAD");
    }

    /**
     * The folder's own tag that {@code tagName} stands for, with COOL's errors: RESERVED_HEAD_TAG for HEAD,
     * TAG_NOT_FOUND for an unknown name, NODE_RELATION_NOT_FOUND when the tag's node is not the folder or one
     * of its ancestors, TAG_RELATION_NOT_FOUND when a tag on the way down has no child tag for the next node.
     */
    public Tag resolve(Connection c, Node folder, String tagName) throws SQLException {
        if (isHead(tagName)) {
            throw new StoreException(StoreException.Kind.RESERVED_HEAD_TAG, "HEAD is not a tag that resolves:"
                    + " it is defined in every folder");
        }
        Tag tag = meta.findTag(c, tagName);
        if (tag == null) {
            throw new StoreException(StoreException.Kind.TAG_NOT_FOUND, "no tag '" + tagName + "'");
        }
        if (tag.nodeId() == folder.id()) {
            return tag;
        }
        Deque<Node> path = new ArrayDeque<>();
        Node n = folder;
        while (n != null && n.id() != tag.nodeId()) {
            path.push(n);
            n = n.parentId() == null ? null : meta.findNode(c, n.parentId());
        }
        if (n == null) {
            throw new StoreException(StoreException.Kind.NODE_RELATION_NOT_FOUND, "tag '" + tagName
                    + "' belongs to a node that is not '" + folder.path() + "' or one of its parents");
        }
        long parentNode = n.id();
        long parentTag = tag.id();
        while (!path.isEmpty()) {
            Node child = path.pop();
            Long childTag = meta.childTagId(c, parentNode, parentTag, child.id());
            if (childTag == null) {
                throw new StoreException(StoreException.Kind.TAG_RELATION_NOT_FOUND, "tag '" + tagName
                        + "' has no child tag for '" + child.path() + "'");
            }
            parentNode = child.id();
            parentTag = childTag;
        }
        Tag resolved = meta.findTag(c, parentNode, parentTag);
        if (resolved == null) {
            throw new StoreException(StoreException.Kind.TAG_RELATION_NOT_FOUND, "tag '" + tagName
                    + "' resolves to a missing tag id " + parentTag + " in '" + folder.path() + "'");
        }
        return resolved;
    }

    /**
     * The layer for a read of {@code folder} in {@code tagName} (null, "" or HEAD mean the HEAD). As in COOL, a
     * read names a tag the folder does not have as TAG_NOT_FOUND, whatever made the resolution fail.
     */
    public Layer layer(Connection c, Node folder, String tagName) throws SQLException {
        return forRead(c, folder, tagName).layer();
    }

    /** A read's layer and the folder's own tag it reads (null for the HEAD). */
    public record ReadLayer(Layer layer, Tag tag) {
    }

    /** {@link #layer} and the tag it resolved, for reads that need both (one resolution, not two). */
    public ReadLayer forRead(Connection c, Node folder, String tagName) throws SQLException {
        if (!folder.isMultiVersion()) {
            if (!isHead(tagName) && !servedByGlobalTag(c, folder, tagName)) {
                throw new StoreException(StoreException.Kind.TAG_NOT_FOUND, "'" + folder.path() + "' is a"
                        + " single-version folder: it has no tags, so tag '" + tagName + "' cannot be read from it");
            }
            return new ReadLayer(Layer.SV, null);
        }
        if (isHead(tagName)) {
            return new ReadLayer(Layer.HEAD, null);
        }
        Tag t;
        try {
            t = resolve(c, folder, tagName);
        } catch (StoreException e) {
            if (e.kind() == StoreException.Kind.NODE_RELATION_NOT_FOUND
                    || e.kind() == StoreException.Kind.TAG_RELATION_NOT_FOUND) {
                String why = notFrozenWith(c, folder, tagName);
                throw new StoreException(StoreException.Kind.TAG_NOT_FOUND, why != null ? why : e.getMessage(), e);
            }
            throw e;
        }
        return new ReadLayer(switch (t.kind()) {
            case USER -> Layer.userTag(t.id());
            case STANDARD -> Layer.standardTag(t.id());
            case FOLDERSET -> throw new StoreException(StoreException.Kind.TAG_NOT_FOUND, "tag '" + tagName
                    + "' is a folderset tag");
        }, t);
    }

    /**
     * Whether a read of the single-version {@code folder} in {@code tagName} is a read of the folder's HEAD: the tag
     * is a global tag (single-version folders have no tags, and every global tag reads them at their HEAD) and, if
     * the global tag is frozen, the folder is one of its folders. A frozen global tag refuses a folder created after
     * it was locked, as COOL refuses a tag without a relation to the folder.
     */
    private boolean servedByGlobalTag(Connection c, Node folder, String tagName) throws SQLException {
        Tag tag = meta.findTag(c, tagName);
        Node root = meta.findNode(c, "/");
        if (tag == null || root == null || tag.nodeId() != root.id()) {
            return false;
        }
        String why = notFrozenWith(c, folder, tagName);
        if (why != null) {
            throw new StoreException(StoreException.Kind.TAG_NOT_FOUND, why);
        }
        return true;
    }

    /** Why {@code folder} is not read in the frozen global tag {@code tagName}, or null if it is (or no such tag). */
    private String notFrozenWith(Connection c, Node folder, String tagName) throws SQLException {
        String lockedAt = frozen.lockedWithout(c, tagName, folder.id());
        if (lockedAt == null) {
            return null;
        }
        return "'" + folder.path() + "' is not part of the global tag '" + tagName + "': the global tag was locked at "
                + lockedAt + " and serves the folders it served then";
    }

    static boolean readable(TagKind k) {
        return k != TagKind.FOLDERSET;
    }
}
