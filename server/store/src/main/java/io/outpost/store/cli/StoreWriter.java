package io.outpost.store.cli;

import io.outpost.store.IovStore;
import io.outpost.store.globaltag.FolderChoice;
import io.outpost.store.globaltag.GlobalTag;
import io.outpost.store.globaltag.GlobalTags;
import io.outpost.store.model.KeyType;
import io.outpost.store.model.NewIov;
import io.outpost.store.model.Node;
import io.outpost.store.model.PayloadSpec;
import io.outpost.store.model.TagLock;
import io.outpost.store.model.Versioning;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** The loader's commands directly against a database. */
final class StoreWriter implements ConditionsWriter {
    private final IovStore store;

    StoreWriter(IovStore store) {
        this.store = store;
    }

    IovStore store() {
        return store;
    }

    @Override
    public void createFolderSet(String path, String description, boolean parents) {
        store.createFolderSet(path, description, parents);
    }

    @Override
    public String createFolder(String path, Versioning versioning, KeyType keys, PayloadSpec payload, String description,
                               boolean parents) {
        Node f = store.createFolder(path, versioning, keys, payload, description, parents);
        return "created folder " + f.path() + ": " + f.versioning().shortName() + ", " + f.keyType().label() + " keys, "
                + f.payloadSpec() + " (tables " + f.tablePrefix() + "_*)";
    }

    @Override
    public void createChannel(String folder, long id, String name, String description) {
        store.createChannel(store.folder(folder), id, name, description);
    }

    @Override
    public PayloadSpec payloadSpec(String folder) {
        return store.folder(folder).payloadSpec();
    }

    @Override
    public KeyType keyType(String folder) {
        return store.folder(folder).keyType();
    }

    @Override
    public int store(String folder, List<NewIov> batch) {
        store.store(store.folder(folder), batch);
        return batch.size();
    }

    @Override
    public int flush() {
        return 0;
    }

    @Override
    public void tag(String folder, String tag, Instant asOf, String description) {
        Node f = store.folder(folder);
        if (asOf == null) {
            store.tagCurrentHead(f, tag, description);
        } else {
            store.tagHeadAsOfDate(f, tag, asOf, description);
        }
    }

    @Override
    public void lock(String node, String tag, TagLock lock) {
        if (node == null) {
            store.setTagLock(tag, lock);
        } else {
            store.setTagLock(store.node(node), tag, lock);
        }
    }

    @Override
    public void relate(String node, String parent, String child) {
        if (node == null) {
            store.createTagRelation(parent, child);
        } else {
            store.createTagRelation(store.node(node), parent, child);
        }
    }

    @Override
    public boolean deleteTag(String folder, String tag) {
        return store.deleteTag(store.folder(folder), tag);
    }

    @Override
    public int truncate(String folder, long until, String channels) {
        return store.truncateValidity(store.folder(folder), until, LoaderCli.channelSelection(channels));
    }

    @Override
    public List<String> list() {
        List<String> out = new ArrayList<>();
        for (Node n : store.listNodes()) {
            out.add(n.isFolder() ? n.path() + "  " + n.versioning().shortName() + " " + n.keyType().label() + " "
                    + n.payloadSpec() : n.path() + "/");
        }
        return out;
    }

    @Override
    public void close() {
        store.close();
    }

    @Override
    public void createGlobalTag(String name, String description, java.util.Map<String, String> choices, boolean lock) {
        GlobalTags gts = new GlobalTags(store);
        gts.create(name, description, choices);
        if (lock) {
            gts.lock(name, TagLock.LOCKED, "outpost-loader (" + System.getProperty("user.name") + ")");
        }
    }

    @Override
    public String lockGlobalTag(String name, TagLock lock) {
        GlobalTags gts = new GlobalTags(store);
        gts.lock(name, lock, "outpost-loader (" + System.getProperty("user.name") + ")");
        String frozenAt = gts.frozenAt(name);
        return frozenAt == null ? "" : "; it serves the " + gts.frozenFolders(name).size() + " folders it served at "
                + frozenAt + ", with the HEADs it read as of then";
    }

    @Override
    public List<String> globalTags() {
        List<String> out = new ArrayList<>();
        for (GlobalTag gt : new GlobalTags(store).list()) {
            out.add(gt.name() + "\t" + gt.lock().name().toLowerCase(java.util.Locale.ROOT) + "\t" + gt.insertionTime()
                    + "\t" + gt.description());
        }
        return out;
    }

    @Override
    public List<String> resolveGlobalTag(String name) {
        List<String> out = new ArrayList<>();
        for (FolderChoice c : new GlobalTags(store).resolve(name)) {
            out.add(c.folder().path() + "\t" + c.tagName());
        }
        return out;
    }
}
