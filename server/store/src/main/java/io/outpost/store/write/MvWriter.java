package io.outpost.store.write;

import io.outpost.store.StoreException;
import io.outpost.store.db.BrowseSpec;
import io.outpost.store.db.Dialect;
import io.outpost.store.db.Layer;
import io.outpost.store.model.ChannelSelection;
import io.outpost.store.model.NewIov;
import io.outpost.store.model.Node;
import io.outpost.store.model.Tag;
import io.outpost.store.model.TagLock;
import io.outpost.store.read.IovReader;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Multi-version bulk insertion with COOL's layering. Each layer (the HEAD, or one user tag) keeps, per channel,
 * a partition of visible rows (NEW_HEAD_ID = 0). Storing [s, u) hides every visible row it overlaps
 * (NEW_HEAD_ID = the new object's id) and re-inserts the parts sticking out below s and above u as remnant rows
 * (ORIGINAL_ID = the hidden row). Nothing is ever deleted, so older tags and "HEAD as of a date" stay readable.
 *
 * <p>Statements per flush are constant per layer touched: one read of the visible rows of all flagged channels
 * over the flush's key range, then batched updates and inserts. Remnants of stored rows are copied inside the
 * database (INSERT … SELECT), so payloads are never read back.
 */
final class MvWriter {
    private final Dialect dialect;
    private final IovReader reader;

    MvWriter(Dialect dialect, IovReader reader) {
        this.dialect = dialect;
        this.reader = reader;
    }

    /** A visible row of a layer: stored (pending == null) or created in this flush. */
    private record Visible(long objectId, long since, long until, IovRows.Row pending) {
    }

    private record LayerKey(long userTagId, long channelId) {
    }

    void store(Connection c, Node folder, List<NewIov> objects, Map<String, Tag> userTags, String now)
            throws SQLException {
        Set<Long> channels = new LinkedHashSet<>();
        Map<Long, long[]> rangePerLayer = new HashMap<>();
        for (NewIov o : objects) {
            channels.add(o.channelId());
            for (long layer : layersOf(o, userTags)) {
                long[] r = rangePerLayer.computeIfAbsent(layer, k -> new long[] {Long.MAX_VALUE, Long.MIN_VALUE});
                r[0] = Math.min(r[0], o.since());
                r[1] = Math.max(r[1], o.until());
            }
        }

        FolderLock lock = FolderLock.acquire(c, dialect, folder);
        Channels.ensureAndFlag(c, dialect, folder, channels);

        Map<LayerKey, TreeMap<Long, Visible>> visible = new HashMap<>();
        for (Map.Entry<Long, long[]> e : rangePerLayer.entrySet()) {
            long layer = e.getKey();
            BrowseSpec spec = new BrowseSpec(folder, Layer.userTag(layer), e.getValue()[0], e.getValue()[1] - 1,
                    ChannelSelection.all(), true, false);
            reader.browse(c, spec, iov -> visible.computeIfAbsent(new LayerKey(layer, iov.channelId()), k -> new TreeMap<>())
                    .put(iov.since(), new Visible(iov.objectId(), iov.since(), iov.until(), null)));
        }

        Map<Long, TagLock> locks = new HashMap<>();
        for (Tag t : userTags.values()) {
            locks.put(t.id(), t.lock());
        }
        List<IovRows.Row> inserts = new ArrayList<>();
        List<IovRows.Row> copies = new ArrayList<>();
        Map<Long, Long> hides = new HashMap<>();
        Map<Long, Long> lastObject = new HashMap<>();
        for (NewIov o : objects) {
            for (long layer : layersOf(o, userTags)) {
                long id = lock.nextId();
                TreeMap<Long, Visible> rows = visible.computeIfAbsent(new LayerKey(layer, o.channelId()), k -> new TreeMap<>());
                for (Visible v : overlapping(rows, o.since(), o.until())) {
                    if (locks.getOrDefault(layer, TagLock.UNLOCKED) == TagLock.PARTIALLY_LOCKED) {
                        throw new StoreException(StoreException.Kind.TAG_LOCKED, "user tag '" + o.userTag()
                                + "' is partially locked: it may be appended to, but [" + o.since() + ", " + o.until()
                                + ") overlaps its IOV [" + v.since + ", " + v.until + ") in channel " + o.channelId());
                    }
                    rows.remove(v.since);
                    if (v.pending != null) {
                        v.pending.newHeadId = id;
                    } else {
                        hides.put(v.objectId, id);
                    }
                    if (v.since < o.since()) {
                        rows.put(v.since, remnant(lock.nextId(), o.channelId(), v.since, o.since(), layer, v, inserts, copies));
                    }
                    if (v.until > o.until()) {
                        rows.put(o.until(), remnant(lock.nextId(), o.channelId(), o.until(), v.until, layer, v, inserts, copies));
                    }
                }
                IovRows.Row row = new IovRows.Row(id, o.channelId(), o.since(), o.until(), layer, 0, o.payload());
                inserts.add(row);
                rows.put(o.since(), new Visible(id, o.since(), o.until(), row));
            }
        }
        for (IovRows.Row r : inserts) {
            lastObject.merge(r.channelId, r.objectId, Math::max);
        }
        for (IovRows.Row cp : copies) {
            lastObject.merge(cp.channelId, cp.objectId, Math::max);
        }

        hide(c, folder, hides, now);
        IovRows.insert(c, folder, inserts, now);
        copy(c, folder, copies, now);
        Channels.finish(c, dialect, folder, channels, lastObject);
        lock.release(now);
    }

    /** The layers an object goes into: the HEAD (0) unless userTagOnly, and its user tag if it has one. */
    private static long[] layersOf(NewIov o, Map<String, Tag> userTags) {
        if (o.userTag() == null) {
            return new long[] {0};
        }
        long tag = userTags.get(o.userTag()).id();
        return o.userTagOnly() ? new long[] {tag} : new long[] {0, tag};
    }

    private static List<Visible> overlapping(TreeMap<Long, Visible> rows, long since, long until) {
        List<Visible> out = new ArrayList<>();
        Map.Entry<Long, Visible> below = rows.floorEntry(since);
        if (below != null && below.getValue().until > since) {
            out.add(below.getValue());
        }
        for (Visible v : rows.subMap(since, false, until, false).values()) {
            out.add(v);
        }
        return out;
    }

    /** A remnant [since, until) of a hidden row {@code of}, visible in its layer, payload taken from {@code of}. */
    private static Visible remnant(long id, long ch, long since, long until, long layer, Visible of,
                                   List<IovRows.Row> inserts, List<IovRows.Row> copies) {
        boolean inMemory = of.pending != null && of.pending.payload != null;
        IovRows.Row r = new IovRows.Row(id, ch, since, until, layer, of.objectId, inMemory ? of.pending.payload : null);
        if (inMemory) {
            inserts.add(r);
        } else {
            r.copyFrom = of.pending != null ? of.pending.copyFrom : of.objectId;
            copies.add(r);
        }
        return new Visible(id, since, until, r);
    }

    private void hide(Connection c, Node folder, Map<Long, Long> hides, String now) throws SQLException {
        long[] ids = new long[hides.size()];
        long[] by = new long[hides.size()];
        int i = 0;
        for (Map.Entry<Long, Long> h : hides.entrySet()) {
            ids[i] = h.getKey();
            by[i++] = h.getValue();
        }
        dialect.executeForEach(c, "UPDATE " + folder.iovTable()
                + " SET LASTMOD_DATE = ?, NEW_HEAD_ID = ? WHERE OBJECT_ID = ? AND NEW_HEAD_ID = 0", now, by, ids);
    }

    private void copy(Connection c, Node folder, List<IovRows.Row> copies, String now) throws SQLException {
        if (copies.isEmpty()) {
            return;
        }
        StringBuilder payloadCols = new StringBuilder();
        for (var f : folder.payloadSpec().fields()) {
            payloadCols.append(", ").append(f.column());
        }
        String sql = "INSERT INTO " + folder.iovTable() + " (" + IovRows.IOV_COLUMNS + payloadCols + ") SELECT "
                + IovRows.IOV_PARAMETERS + payloadCols + " FROM " + folder.iovTable() + " WHERE OBJECT_ID = ?";
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (IovRows.Row cp : copies) {
                IovRows.bindIovColumns(ps, cp, now);
                ps.setLong(10, cp.copyFrom);
                if (dialect.batchesInsertSelect()) {
                    ps.addBatch();
                } else {
                    ps.executeUpdate();
                }
            }
            if (dialect.batchesInsertSelect()) {
                ps.executeBatch();
            }
        }
    }
}
