package io.outpost.server.pin;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.outpost.server.cache.Catalog;
import io.outpost.store.IovStore;
import io.outpost.store.StoreException;
import io.outpost.store.globaltag.FolderChoice;
import io.outpost.store.globaltag.FrozenFolders;
import io.outpost.store.globaltag.GlobalTags;
import io.outpost.store.model.Node;
import io.outpost.store.model.TagLock;
import io.outpost.store.read.TagResolver;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.springframework.stereotype.Component;

/**
 * Computes states from the catalog's generations. Which tag each folder reads is resolved from the database once
 * per global tag and catalog generation (the catalog generation changes with every node, tag or folder change);
 * the generations themselves come from memory.
 */
@Component
public class StateService {
    private final IovStore store;
    private final GlobalTags globalTags;
    private final Catalog catalog;
    private final Cache<String, Resolution> resolutions = Caffeine.newBuilder().maximumSize(1_000).build();

    /** What a tag resolves to, and the folders it was frozen with (empty: not frozen). */
    private record Resolution(List<FolderChoice> choices, Map<Long, FrozenFolders.Member> frozen) {
    }

    public StateService(IovStore store, Catalog catalog) {
        this.store = store;
        this.globalTags = new GlobalTags(store);
        this.catalog = catalog;
    }

    public GlobalTags globalTags() {
        return globalTags;
    }

    /** The current state of {@code tag} (a global tag or HEAD) over {@code subtree} ("/" for everything). */
    public State current(String tag, String subtree) {
        if (!subtree.equals("/") && catalog.find(subtree) == null) {
            catalog.refreshIfOlderThanASecond();
            if (catalog.find(subtree) == null) {
                throw new StoreException(StoreException.Kind.FOLDER_NOT_FOUND, "no folder or folderset '" + subtree + "'");
            }
        }
        Resolution resolution = resolution(tag);
        List<FolderChoice> choices = resolution.choices();
        List<State.FolderState> folders = new ArrayList<>();
        StringBuilder digest = new StringBuilder(tag).append('\n').append(subtree).append('\n');
        for (FolderChoice c : choices) {
            if (!GlobalTagsPaths.within(c.folder().path(), subtree)) {
                continue;
            }
            Catalog.Entry e = catalog.find(c.folder().path());
            if (e == null) {
                catalog.refreshIfOlderThanASecond();
                e = catalog.find(c.folder().path());
            }
            String stamp = e == null ? "0@none" : e.generation();
            Node node = e == null ? c.folder() : e.node();
            FrozenFolders.Member member = resolution.frozen().get(node.id());
            boolean frozen = member != null && !c.isHead() && c.tag().lock() == TagLock.LOCKED
                    && c.tagName().equals(member.folderTag());
            GenerationToken token = frozen ? FrozenReads.token(member.lockedAt()) : GenerationToken.ofStamp(stamp);
            String lock = c.isHead() ? "" : c.tag().lock().name().toLowerCase(java.util.Locale.ROOT);
            folders.add(new State.FolderState(node, c.tagName(), lock, stamp, token, frozen));
            digest.append(node.path()).append(' ').append(c.tagName()).append(' ').append(token).append('\n');
        }
        if (folders.isEmpty() && !subtree.equals("/") && !resolution.frozen().isEmpty()) {
            // only folders created after the lock lie there: refused as a folder the global tag has no tag for
            throw new StoreException(StoreException.Kind.TAG_NOT_FOUND, "'" + subtree + "' is not part of the global"
                    + " tag '" + tag + "': the global tag was locked at " + resolution.frozen().values().iterator()
                    .next().lockedAt() + " and serves the folders it served then");
        }
        return new State(tag, subtree, List.copyOf(folders), hash(digest.toString()));
    }

    private Resolution resolution(String tag) {
        String key = tag + " " + catalog.catalogGeneration();
        return resolutions.get(key, k -> TagResolver.isHead(tag) ? new Resolution(headChoices(), Map.of())
                : new Resolution(globalTags.resolve(tag), globalTags.frozenFolders(tag)));
    }

    private List<FolderChoice> headChoices() {
        List<FolderChoice> out = new ArrayList<>();
        for (Node n : store.listNodes()) {
            if (n.isFolder()) {
                out.add(new FolderChoice(n, null));
            }
        }
        return out;
    }

    static String hash(String s) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
