package io.outpost.store.write;

import io.outpost.store.StoreException;
import io.outpost.store.db.BrowseSpec;
import io.outpost.store.db.Dialect;
import io.outpost.store.db.Layer;
import io.outpost.store.model.ChannelSelection;
import io.outpost.store.model.NewIov;
import io.outpost.store.model.Node;
import io.outpost.store.model.ValidityKey;
import io.outpost.store.read.IovReader;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Single-version bulk insertion with COOL's checks in a constant number of statements per flush: the new
 * objects are checked against each other in memory, then against each touched channel's last stored IOV,
 * which one join fetches for all channels at once. Storing closes an open-ended last IOV; storing into a gap
 * in the past is allowed for one object per channel when nothing overlaps it. Runs inside the caller's
 * transaction; any failure throws and the caller rolls back.
 */
final class SvWriter {
    private final Dialect dialect;
    private final IovReader reader;

    SvWriter(Dialect dialect, IovReader reader) {
        this.dialect = dialect;
        this.reader = reader;
    }

    /** The last stored IOV of a channel. */
    private record Last(long objectId, long since, long until) {
    }

    void store(Connection c, Node folder, List<NewIov> objects, String now) throws SQLException {
        // 1. In memory, per channel in batch order: close open-ended predecessors, reject overlaps.
        Map<Long, List<IovRows.Row>> byChannel = new LinkedHashMap<>();
        for (NewIov o : objects) {
            List<IovRows.Row> list = byChannel.computeIfAbsent(o.channelId(), k -> new ArrayList<>());
            if (!list.isEmpty()) {
                IovRows.Row prev = list.get(list.size() - 1);
                if (prev.until == ValidityKey.MAX && prev.since < o.since()) {
                    prev.until = o.since();
                } else if (prev.until > o.since()) {
                    throw new StoreException(StoreException.Kind.OVERLAP, "channel " + o.channelId() + ": ["
                            + key(folder, o.since()) + ", " + key(folder, o.until()) + ") overlaps ["
                            + key(folder, prev.since) + ", " + key(folder, prev.until)
                            + ") stored before it in the same batch");
                }
            }
            list.add(new IovRows.Row(0, o.channelId(), o.since(), o.until(), 0, 0, o.payload()));
        }

        FolderLock lock = FolderLock.acquire(c, dialect, folder);
        Channels.ensureAndFlag(c, dialect, folder, byChannel.keySet());

        // 2. Every touched channel's last IOV in one join, no MAX over IOVS.
        Map<Long, Last> last = new HashMap<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT O.CHANNEL_ID, O.OBJECT_ID, O.IOV_SINCE, O.IOV_UNTIL FROM "
                + folder.channelTable() + " C JOIN " + folder.iovTable() + " O ON O.OBJECT_ID = C.LAST_OBJECT_ID"
                + " WHERE C.HAS_NEW_DATA = 1"); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                last.put(rs.getLong(1), new Last(rs.getLong(2), rs.getLong(3), rs.getLong(4)));
            }
        }

        // 3. Decide per channel: close the open IOV, append after a gap, back-insert, or fail.
        List<long[]> closes = new ArrayList<>();
        Map<Long, Long> newLast = new HashMap<>();
        List<IovRows.Row> rows = new ArrayList<>(objects.size());
        for (Map.Entry<Long, List<IovRows.Row>> e : byChannel.entrySet()) {
            long ch = e.getKey();
            List<IovRows.Row> list = e.getValue();
            IovRows.Row first = list.get(0);
            Last l = last.get(ch);
            boolean backInsert = false;
            if (l != null) {
                if (l.until == ValidityKey.MAX && l.since < first.since) {
                    closes.add(new long[] {l.objectId, first.since});
                } else if (first.since < l.until) {
                    backInsert = true;
                    if (list.size() != 1 || overlapsStored(c, folder, ch, first)) {
                        throw new StoreException(StoreException.Kind.OVERLAP, "channel " + ch + ": ["
                                + key(folder, first.since) + ", " + key(folder, first.until)
                                + ") overlaps stored IOVs (the last one is [" + key(folder, l.since) + ", "
                                + key(folder, l.until) + ")); single-version folders accept a past IOV only into a gap");
                    }
                }
            }
            for (IovRows.Row r : list) {
                IovRows.Row withId = new IovRows.Row(lock.nextId(), ch, r.since, r.until, 0, 0, r.payload);
                rows.add(withId);
                if (!backInsert) {
                    newLast.put(ch, withId.objectId);
                }
            }
        }

        // 4. Write: close open IOVs by primary key, insert, move the channels' last pointers, bump the sequence.
        long[] closeIds = closes.stream().mapToLong(cl -> cl[0]).toArray();
        long[] closeAt = closes.stream().mapToLong(cl -> cl[1]).toArray();
        dialect.executeForEach(c, "UPDATE " + folder.iovTable() + " SET LASTMOD_DATE = ?, IOV_UNTIL = ? WHERE OBJECT_ID = ?",
                now, closeAt, closeIds);
        IovRows.insert(c, folder, rows, now);
        Channels.finish(c, dialect, folder, byChannel.keySet(), newLast);
        lock.release(now);
    }

    /** COOL's back-insertion check: the browse over [since, until − 1] in that channel must be empty. */
    /** A key as the folder's users write it (RUN/LUMI in run-lumi folders), for refusals. */
    private static String key(Node folder, long key) {
        return io.outpost.store.model.KeyText.format(key, folder.keyType());
    }

    private boolean overlapsStored(Connection c, Node folder, long ch, IovRows.Row r) throws SQLException {
        BrowseSpec spec = new BrowseSpec(folder, Layer.SV, r.since, r.until - 1, ChannelSelection.channel(ch), false, false);
        return reader.count(c, spec) > 0;
    }
}
