package io.outpost.server.pin;

import io.outpost.store.IovStore;
import io.outpost.store.db.SysTime;
import io.outpost.store.globaltag.FrozenFolders;
import io.outpost.store.model.Node;
import io.outpost.store.model.Tag;
import io.outpost.store.model.TagLock;
import io.outpost.store.read.Metadata;
import io.outpost.store.read.TagResolver;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import org.springframework.stereotype.Component;

/**
 * Generations of reads through a locked (frozen) global tag. A folder tag held by a frozen global tag cannot change
 * while that global tag stays locked, so its reads are pinned to the lock, not to the folder's generation: the token
 * is the lock time with sequence 0, and writes to the folder's HEAD leave the global tag's state, snapshots and
 * pinned URLs as they were. A token stays valid while a frozen global tag locked at that time holds the tag.
 */
@Component
public class FrozenReads {
    private final IovStore store;
    private final Metadata meta;
    private final FrozenFolders frozen;

    public FrozenReads(IovStore store) {
        this.store = store;
        this.meta = new Metadata(store.database().prefix());
        this.frozen = new FrozenFolders(store.database().prefix());
    }

    /** The generation of a folder tag frozen at {@code lockedAt} (a COOL time string). */
    public static GenerationToken token(String lockedAt) {
        Instant t = SysTime.parse(lockedAt);
        return new GenerationToken(t.getEpochSecond() * 1_000_000L + t.getNano() / 1000, 0);
    }

    /** Whether {@code tag} of {@code folder} is held, locked, by a global tag frozen at {@code token}'s time. */
    public boolean holds(Node folder, String tag, GenerationToken token) {
        if (token.seq() != 0 || TagResolver.isHead(tag) || !folder.isMultiVersion()) {
            return false;
        }
        return store.read(c -> holds(c, folder, tag, token));
    }

    /** {@link #holds(Node, String, GenerationToken)} inside the caller's read transaction. */
    public boolean holds(Connection c, Node folder, String tag, GenerationToken token) throws SQLException {
        if (token.seq() != 0 || TagResolver.isHead(tag) || !folder.isMultiVersion()) {
            return false;
        }
        Tag t = meta.findTag(c, tag);
        if (t == null || t.nodeId() != folder.id() || t.lock() != TagLock.LOCKED) {
            return false;
        }
        for (String lockedAt : frozen.lockTimes(c, folder.id(), tag)) {
            if (token(lockedAt).equals(token)) {
                return true;
            }
        }
        return false;
    }
}
