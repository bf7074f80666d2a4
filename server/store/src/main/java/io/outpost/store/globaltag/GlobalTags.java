package io.outpost.store.globaltag;

import io.outpost.store.Failures;
import io.outpost.store.IovStore;
import io.outpost.store.StoreException;
import io.outpost.store.db.SysTime;
import io.outpost.store.model.Names;
import io.outpost.store.model.Node;
import io.outpost.store.model.Tag;
import io.outpost.store.model.TagKind;
import io.outpost.store.model.TagLock;
import io.outpost.store.read.Metadata;
import io.outpost.store.write.TagWriter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Global tags over one store: list them, resolve one to every folder's tag in one read, create one from a list of
 * {@code folder=tag} choices (building the folderset tags and TAG2TAG relations down from the root, all or
 * nothing), and lock or unlock one with every tag it reaches.
 */
public final class GlobalTags {
    private final IovStore store;
    private final Metadata meta;
    private final TagWriter tagWriter;
    private final FrozenFolders frozenFolders;
    private final LockAudit audit;
    private final Clock clock;

    public GlobalTags(IovStore store) {
        this(store, Clock.systemUTC());
    }

    public GlobalTags(IovStore store, Clock clock) {
        this.store = store;
        this.meta = new Metadata(store.database().prefix());
        this.tagWriter = new TagWriter(store.database(), meta);
        this.frozenFolders = new FrozenFolders(store.database().prefix());
        this.audit = new LockAudit(store.database().prefix());
        this.clock = clock;
    }

    /** Every global tag (every tag of the root folderset), by name. */
    public List<GlobalTag> list() {
        return store.read(c -> {
            List<GlobalTag> out = new ArrayList<>();
            for (Tag t : meta.tags(c, root(c))) {
                out.add(new GlobalTag(t.name(), t.description(), t.lock(), t.insertionTime()));
            }
            return out;
        });
    }

    /** The global tag named {@code name}, or TAG_NOT_FOUND. */
    public GlobalTag find(String name) {
        return store.read(c -> {
            Tag t = requireGlobalTag(c, name);
            return new GlobalTag(t.name(), t.description(), t.lock(), t.insertionTime());
        });
    }

    /** Every folder of the database and what {@code name} chooses for it, in path order, from one read transaction. */
    public List<FolderChoice> resolve(String name) {
        return store.read(c -> resolve(c, requireGlobalTag(c, name), null));
    }

    /** Like {@link #resolve(String)} for the folders under {@code subtree} only ("/" for all). */
    public List<FolderChoice> resolve(String name, String subtree) {
        return store.read(c -> resolve(c, requireGlobalTag(c, name), subtree));
    }

    private List<FolderChoice> resolve(Connection c, Tag globalTag, String subtree) throws SQLException {
        // A frozen global tag serves the folders it was locked with, no folder created since.
        Map<Long, FrozenFolders.Member> frozen = frozenFolders.members(c, globalTag.name());
        // Nodes come in path order, so a folderset's tag is known before its children are looked at. The relations
        // below one folderset's tag are read together: one query per folderset the global tag reaches, not one per
        // node (a state of 10,000 folders is resolved again whenever the catalog changes).
        Map<Long, Metadata.ChildTag> tagOfNode = new HashMap<>();
        Map<Long, Map<Long, Metadata.ChildTag>> childrenOf = new HashMap<>();
        List<FolderChoice> out = new ArrayList<>();
        for (Node n : meta.nodes(c)) {
            if (n.parentId() == null) {
                tagOfNode.put(n.id(), new Metadata.ChildTag(globalTag.id(), globalTag));
                continue;
            }
            Metadata.ChildTag parentTag = tagOfNode.get(n.parentId());
            Metadata.ChildTag own = parentTag == null ? null : childrenOf.computeIfAbsent(n.parentId(), p -> {
                try {
                    return meta.childTags(c, p, parentTag.tagId());
                } catch (SQLException e) {
                    throw Failures.translate(e);
                }
            }).get(n.id());
            if (own != null) {
                tagOfNode.put(n.id(), own);
            }
            boolean member = frozen.isEmpty() || frozen.containsKey(n.id());
            if (n.isFolder() && member && within(n.path(), subtree)) {
                Tag t = own == null || !n.isMultiVersion() ? null : own.tag();
                out.add(new FolderChoice(n, t != null && t.kind() != TagKind.FOLDERSET ? t : null));
            }
        }
        return out;
    }

    /** The folders {@code name} was frozen with (by node id, in path order); empty when it is not frozen. */
    public Map<Long, FrozenFolders.Member> frozenFolders(String name) {
        return store.read(c -> {
            requireGlobalTag(c, name);
            return frozenFolders.members(c, name);
        });
    }

    /**
     * When {@code name} was frozen by locking it (a COOL time string), or null if it is not frozen: never locked, or
     * unlocked since.
     */
    public String frozenAt(String name) {
        return store.read(c -> {
            requireGlobalTag(c, name);
            return frozenFolders.members(c, name).values().stream().map(FrozenFolders.Member::lockedAt).findFirst()
                    .orElse(null);
        });
    }

    static boolean within(String path, String subtree) {
        return subtree == null || subtree.equals("/") || path.equals(subtree) || path.startsWith(subtree + "/");
    }

    /**
     * Creates global tag {@code name} choosing {@code choices} (folder path → that folder's own tag); folders not
     * listed read their HEAD. Folderset tags on the way are named by {@link IntermediateTagNames}. All or nothing.
     */
    public GlobalTag create(String name, String description, Map<String, String> choices) {
        Names.checkTagName(Names.Kind.GLOBAL_TAG, name);
        if (choices.isEmpty()) {
            throw StoreException.badArgument("a global tag needs at least one folder=tag choice");
        }
        return store.write(c -> {
            if (meta.findTag(c, name) != null) {
                throw new StoreException(StoreException.Kind.ALREADY_EXISTS, "tag '" + name
                        + "' already exists (tag names are unique in the whole database)");
            }
            String now = SysTime.now(clock);
            Set<String> created = new HashSet<>();
            for (Map.Entry<String, String> e : new LinkedHashMap<>(choices).entrySet()) {
                Node folder = meta.folder(c, e.getKey());
                if (!folder.isMultiVersion()) {
                    throw StoreException.badArgument("'" + folder.path() + "' is single-version: it has no tags and is"
                            + " read at its HEAD in every global tag; leave it out of the list");
                }
                Tag tag = meta.findTag(c, e.getValue());
                if (tag == null) {
                    throw new StoreException(StoreException.Kind.TAG_NOT_FOUND, "no tag '" + e.getValue() + "'");
                }
                if (tag.nodeId() != folder.id() || tag.kind() == TagKind.FOLDERSET) {
                    throw StoreException.badArgument("tag '" + tag.name() + "' is not a tag of the folder '"
                            + folder.path() + "'");
                }
                link(c, name, folder, tag, created, now);
            }
            try (PreparedStatement ps = c.prepareStatement("UPDATE " + store.database().prefix()
                    + "TAGS SET TAG_DESCRIPTION = ? WHERE NODE_ID = 0 AND TAG_NAME = ?")) {
                ps.setString(1, description == null ? "" : description);
                ps.setString(2, name);
                ps.executeUpdate();
            }
            Tag gt = requireGlobalTag(c, name);
            return new GlobalTag(gt.name(), gt.description(), gt.lock(), gt.insertionTime());
        });
    }

    /** Relates the folder's tag to its parent's tag for this global tag, and so on up to the root. */
    private void link(Connection c, String globalTag, Node child, Tag childTag, Set<String> created, String now)
            throws SQLException {
        while (true) {
            Node parent = meta.findNode(c, child.parentId());
            String parentName = IntermediateTagNames.forFolderset(globalTag, parent.path());
            Tag parentTag = meta.findTag(c, parentName);
            if (parentTag != null && !created.contains(parentName)) {
                throw new StoreException(StoreException.Kind.ALREADY_EXISTS, "tag '" + parentName + "', the name this"
                        + " global tag needs for '" + parent.path() + "', is already used by another tag");
            }
            if (parentTag != null) {
                Long existing = meta.childTagId(c, parent.id(), parentTag.id(), child.id());
                if (existing != null) {
                    return; // the folderset's tag is already related to this child (a sibling folder linked it)
                }
            }
            tagWriter.createRelation(c, parentName, childTag.name(), now);
            if (parentTag != null) {
                return; // a folderset tag made earlier in this transaction is already linked upwards
            }
            created.add(parentName);
            if (parent.parentId() == null) {
                return; // the root has no parent
            }
            child = parent;
            childTag = meta.findTag(c, parentName);
        }
    }

    /** {@link #lock(String, TagLock, String)} recorded as done by {@code database}: a direct database connection. */
    public GlobalTag lock(String name, TagLock lock) {
        return lock(name, lock, "database");
    }

    /**
     * Sets the lock status of the global tag and of every tag it reaches (folderset and folder tags), in one
     * transaction, recorded in the write audit as done by {@code subject}.
     *
     * <p>Locking freezes what the global tag serves now: every multi-version folder it reads at its HEAD gets a tag
     * of that HEAD ({@link IntermediateTagNames#forFolder}), related into the global tag and locked with the rest;
     * the folders it serves, with their tags, are recorded, so folders created later are not part of it. A
     * single-version folder has no tags: it stays read at its HEAD. Locking a frozen global tag again changes
     * nothing. Unlocking (or a partial lock) lifts the freeze and unlocks the tags no other frozen global tag holds.
     */
    public GlobalTag lock(String name, TagLock lock, String subject) {
        return store.write(c -> {
            Tag gt = requireGlobalTag(c, name);
            Map<Long, FrozenFolders.Member> frozen = frozenFolders.members(c, name);
            String now = SysTime.now(clock);
            if (lock == TagLock.LOCKED && !frozen.isEmpty() && gt.lock() == TagLock.LOCKED) {
                return new GlobalTag(gt.name(), gt.description(), gt.lock(), gt.insertionTime());
            }
            String outcome;
            int folders;
            if (lock == TagLock.LOCKED) {
                Freeze f = freeze(c, gt, now);
                folders = f.folders();
                outcome = "locked and frozen: " + f.folders() + " folders, " + f.headsTagged()
                        + " read at HEAD now read through a tag of their HEAD as of " + now + ", " + f.singleVersion()
                        + " single-version read at HEAD";
            } else {
                folders = frozenFolders.remove(c, name);
                List<String> reached = new ArrayList<>();
                collect(c, gt, reached);
                List<String> keptLocked = new ArrayList<>();
                for (String t : reached) {
                    String holder = frozenFolders.frozenHolderOf(c, t, name);
                    if (holder != null) {
                        keptLocked.add(t + " (held by " + holder + ")");
                    } else {
                        tagWriter.setLock(c, t, lock);
                    }
                }
                outcome = (lock == TagLock.UNLOCKED ? "unlocked" : "partially locked") + "; freeze of " + folders
                        + " folders lifted" + (keptLocked.isEmpty() ? "" : "; still locked: " + String.join(", ",
                        keptLocked));
            }
            String operation = switch (lock) {
                case LOCKED -> "globaltag-lock";
                case UNLOCKED -> "globaltag-unlock";
                case PARTIALLY_LOCKED -> "globaltag-partial-lock";
            };
            audit.record(c, clock, subject, operation, name, folders, outcome);
            Tag after = requireGlobalTag(c, name);
            return new GlobalTag(after.name(), after.description(), after.lock(), after.insertionTime());
        });
    }

    private record Freeze(int folders, int headsTagged, int singleVersion) {
    }

    /** Tags the HEADs the global tag reads, locks every tag it reaches and records its folders. */
    private Freeze freeze(Connection c, Tag gt, String now) throws SQLException {
        frozenFolders.remove(c, gt.name());
        Set<String> reached = new HashSet<>();
        collectInto(c, gt, reached);
        // a global tag locked before freezing existed has locked folderset tags, which refuse new relations; they
        // are locked again below, in this same transaction
        for (String t : reached) {
            Tag tag = meta.findTag(c, t);
            if (tag.kind() == TagKind.FOLDERSET && tag.lock() != TagLock.UNLOCKED) {
                tagWriter.setLock(c, t, TagLock.UNLOCKED);
            }
        }
        gt = requireGlobalTag(c, gt.name());
        int heads = 0;
        for (FolderChoice choice : resolve(c, gt, null)) {
            Node folder = choice.folder();
            if (choice.isHead() && folder.isMultiVersion()) {
                String headTag = IntermediateTagNames.forFolder(gt.name(), folder.path());
                if (meta.findTag(c, headTag) != null) {
                    throw new StoreException(StoreException.Kind.ALREADY_EXISTS, "cannot lock '" + gt.name()
                            + "': it reads '" + folder.path() + "' at its HEAD, and '" + headTag + "', the tag"
                            + " that would keep that HEAD, already exists outside the global tag");
                }
                if (headHasIovs(c, folder)) {
                    tagWriter.tagCurrentHead(c, folder, headTag, "the HEAD of " + folder.path() + " as of " + now
                            + ", when " + gt.name() + " was locked", now);
                }
                linkFolderTag(c, gt.name(), folder, headTag, reached, now);
                heads++;
            }
        }
        List<String> all = new ArrayList<>();
        collect(c, gt, all);
        for (String t : all) {
            tagWriter.setLock(c, t, TagLock.LOCKED);
        }
        int sv = 0;
        List<FolderChoice> served = resolve(c, requireGlobalTag(c, gt.name()), null);
        for (FolderChoice choice : served) {
            boolean single = !choice.folder().isMultiVersion();
            sv += single ? 1 : 0;
            frozenFolders.add(c, gt.name(), new FrozenFolders.Member(choice.folder().id(), choice.folder().path(),
                    single ? null : choice.tagName(), now));
        }
        return new Freeze(served.size(), heads, sv);
    }

    private boolean headHasIovs(Connection c, Node folder) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM " + folder.iovTable()
                + " WHERE USER_TAG_ID = 0 AND NEW_HEAD_ID = 0")) {
            ps.setMaxRows(1);
            try (var rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    /**
     * Relates {@code folderTag} (created empty if the HEAD had nothing to tag) into the global tag, creating the
     * folderset tags it lacks on the way up; folderset tags it already has ({@code reached}) are used as they are.
     */
    private void linkFolderTag(Connection c, String globalTag, Node folder, String folderTag, Set<String> reached,
                               String now) throws SQLException {
        Node child = folder;
        String childTag = folderTag;
        while (true) {
            Node parent = meta.findNode(c, child.parentId());
            String parentName = IntermediateTagNames.forFolderset(globalTag, parent.path());
            Tag parentTag = meta.findTag(c, parentName);
            if (parentTag != null && !reached.contains(parentName)) {
                throw new StoreException(StoreException.Kind.ALREADY_EXISTS, "tag '" + parentName + "', the name this"
                        + " global tag needs for '" + parent.path() + "', is already used by another tag");
            }
            tagWriter.createRelation(c, child, parentName, childTag, now);
            if (parentTag != null || parent.parentId() == null) {
                return; // a folderset tag of the global tag is already linked upwards; the root has no parent
            }
            reached.add(parentName);
            child = parent;
            childTag = parentName;
        }
    }

    private void collectInto(Connection c, Tag tag, Set<String> out) throws SQLException {
        List<String> l = new ArrayList<>();
        collect(c, tag, l);
        out.addAll(l);
    }

    private void collect(Connection c, Tag tag, List<String> out) throws SQLException {
        out.add(tag.name());
        try (PreparedStatement ps = c.prepareStatement("SELECT CHILD_NODEID, CHILD_TAGID FROM "
                + store.database().prefix() + "TAG2TAG WHERE PARENT_NODEID = ? AND PARENT_TAGID = ?")) {
            ps.setLong(1, tag.nodeId());
            ps.setLong(2, tag.id());
            List<long[]> children = new ArrayList<>();
            try (var rs = ps.executeQuery()) {
                while (rs.next()) {
                    children.add(new long[] {rs.getLong(1), rs.getLong(2)});
                }
            }
            for (long[] child : children) {
                Tag t = meta.findTag(c, child[0], child[1]);
                if (t != null) {
                    collect(c, t, out);
                }
            }
        }
    }

    private Node root(Connection c) throws SQLException {
        return meta.findNode(c, "/");
    }

    private Tag requireGlobalTag(Connection c, String name) throws SQLException {
        Tag t = meta.findTag(c, name);
        if (t == null) {
            throw new StoreException(StoreException.Kind.TAG_NOT_FOUND, "no global tag '" + name + "'");
        }
        if (t.nodeId() != root(c).id()) {
            throw StoreException.badArgument("tag '" + name + "' is not a global tag: it belongs to another node"
                    + " than the root folderset '/'");
        }
        return t;
    }
}
