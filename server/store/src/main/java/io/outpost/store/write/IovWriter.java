package io.outpost.store.write;

import io.outpost.store.StoreException;
import io.outpost.store.db.Dialect;
import io.outpost.store.model.Channel;
import io.outpost.store.model.NewIov;
import io.outpost.store.model.Node;
import io.outpost.store.model.Tag;
import io.outpost.store.model.ValidityKey;
import io.outpost.store.read.IovReader;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Checks a batch of new objects before any SQL runs, then hands it to the SV or MV writer. */
public final class IovWriter {
    private final SvWriter sv;
    private final MvWriter mv;
    private final TagWriter tags;
    private final Dialect dialect;

    public IovWriter(Dialect dialect, IovReader reader, TagWriter tags) {
        this.dialect = dialect;
        this.sv = new SvWriter(dialect, reader);
        this.mv = new MvWriter(dialect, reader);
        this.tags = tags;
    }

    /** Validates keys, channel ids, payloads and tags; returns the objects with canonical payload values. */
    public static List<NewIov> validate(Node folder, List<NewIov> objects) {
        List<NewIov> out = new ArrayList<>(objects.size());
        int i = 0;
        for (NewIov o : objects) {
            String where = "object #" + i + " (channel " + o.channelId() + ", ["
                    + io.outpost.store.model.KeyText.format(o.since(), folder.keyType()) + ", "
                    + io.outpost.store.model.KeyText.format(o.until(), folder.keyType()) + "))";
            try {
                ValidityKey.checkInterval(o.since(), o.until());
            } catch (StoreException e) {
                throw new StoreException(e.kind(), where + ": " + e.getMessage());
            }
            if (o.channelId() < 0 || o.channelId() > Channel.MAX_ID) {
                throw StoreException.badArgument(where + ": channel id must be between 0 and " + Channel.MAX_ID);
            }
            if (o.userTag() != null && !folder.isMultiVersion()) {
                throw new StoreException(StoreException.Kind.FOLDER_IS_SINGLE_VERSION, where + ": '" + folder.path()
                        + "' is single-version and cannot store into user tag '" + o.userTag() + "'");
            }
            if (o.userTag() == null && o.userTagOnly()) {
                throw StoreException.badArgument(where + ": userTagOnly needs a user tag");
            }
            Object[] payload;
            try {
                payload = folder.payloadSpec().coerce(o.payload() == null ? new Object[0] : o.payload());
            } catch (IllegalArgumentException e) {
                throw new StoreException(StoreException.Kind.INVALID_PAYLOAD, where + ": " + e.getMessage());
            }
            out.add(new NewIov(o.channelId(), o.since(), o.until(), payload, o.userTag(), o.userTagOnly()));
            i++;
        }
        return out;
    }

    /** Stores already validated objects inside the caller's transaction. */
    public void store(Connection c, Node folder, List<NewIov> objects, String now) throws SQLException {
        if (!folder.isMultiVersion()) {
            sv.store(c, folder, objects, now);
            return;
        }
        Map<String, Tag> userTags = new LinkedHashMap<>();
        if (objects.stream().anyMatch(o -> o.userTag() != null)) {
            // the folder's writer lock before reading the tags' lock status, so a concurrent lock cannot slip in
            FolderLock.acquire(c, dialect, folder);
        }
        for (NewIov o : objects) {
            if (o.userTag() != null && !userTags.containsKey(o.userTag())) {
                userTags.put(o.userTag(), tags.userTagForStore(c, folder, o.userTag(), now));
            }
        }
        mv.store(c, folder, objects, userTags, now);
    }
}
