package io.outpost.store.export;

import io.outpost.store.model.Node;
import io.outpost.store.model.Tag;
import io.outpost.store.model.TagKind;
import io.outpost.store.read.Metadata;
import io.outpost.store.read.TagResolver;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * What to copy of one folder for a global tag: the folder's ancestors, the chain of tags from the global tag
 * down to the folder's own tag (each link one TAG2TAG row), and the layer whose rows reads in that tag see.
 * A multi-version folder the global tag does not reach (and every folder for the global tag HEAD) is copied
 * as its HEAD; a single-version folder has no tags and is always copied whole in the range.
 *
 * @param ancestors the foldersets above the folder, root excluded, outermost first
 * @param tagChain  the tags from the global tag down to the folder's own tag; empty for the HEAD
 */
record FolderPlan(Node folder, List<Node> ancestors, List<Tag> tagChain) {

    /** The folder's own tag, or null when the HEAD (or a single-version folder) is copied. */
    Tag folderTag() {
        return tagChain.isEmpty() ? null : tagChain.get(tagChain.size() - 1);
    }

    static FolderPlan of(Connection c, Metadata meta, Node folder, String globalTag) throws SQLException {
        List<Node> ancestors = new ArrayList<>();
        for (Long p = folder.parentId(); p != null && p != 0; ) {
            Node n = meta.findNode(c, p);
            ancestors.add(0, n);
            p = n.parentId();
        }
        if (!folder.isMultiVersion() || TagResolver.isHead(globalTag)) {
            return new FolderPlan(folder, ancestors, List.of());
        }
        Tag global = meta.findTag(c, globalTag);
        List<Node> path = new ArrayList<>();
        path.add(meta.findNode(c, 0L));
        path.addAll(ancestors);
        path.add(folder);
        int start = -1;
        for (int i = 0; i < path.size(); i++) {
            if (path.get(i).id() == global.nodeId()) {
                start = i;
            }
        }
        if (start < 0) {
            return new FolderPlan(folder, ancestors, List.of());
        }
        List<Tag> chain = new ArrayList<>();
        chain.add(global);
        for (int i = start + 1; i < path.size(); i++) {
            Tag parent = chain.get(chain.size() - 1);
            Long child = meta.childTagId(c, parent.nodeId(), parent.id(), path.get(i).id());
            if (child == null) {
                return new FolderPlan(folder, ancestors, List.of());
            }
            chain.add(meta.findTag(c, path.get(i).id(), child));
        }
        if (chain.get(chain.size() - 1).kind() == TagKind.FOLDERSET) {
            return new FolderPlan(folder, ancestors, List.of());
        }
        return new FolderPlan(folder, ancestors, chain);
    }
}
