package io.outpost.server.rows;

import io.outpost.store.db.Layer;
import io.outpost.store.model.Channel;
import io.outpost.store.model.ChannelSelection;
import io.outpost.store.model.Node;
import io.outpost.store.model.ValidityKey;
import io.outpost.store.read.IovReader;
import io.outpost.wire.Column;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Brings a single-version layer held at an older stamp up to date by reading again only the channels that have rows
 * written since. In a single-version folder a write only inserts rows, with object ids above the sequence value of
 * the older stamp ({@code CURRENT_VALUE} of {@code _IOVS_SEQ}, the first part of the stamp), and closes the open
 * IOV of the same channels in the same transaction; a truncation ends open IOVs in place, with no new object. Both
 * set the rows' LASTMOD_DATE to the time they also write into the stamp (its second part), so every changed row has
 * an object id above the older stamp's or a LASTMOD_DATE after its time (COOL's fixed-width times: string order is
 * time order; a change at the very same time would leave the stamp itself unchanged). Those channels' rows are read with the store's own browse query, the other channels' rows are
 * kept. Gives up (null: build it whole) for other layers, a sequence that went backwards, or changes spread over
 * more channel ranges than one browse takes.
 */
final class IncrementalRefresh {
    private IncrementalRefresh() {
    }

    static HeldRows refresh(Connection c, IovReader reader, Node folder, HeldRows old, String stamp,
                            List<Channel> channels, long limit, List<Column> columns, boolean keepsAnswers)
            throws SQLException {
        if (old.layer().kind() != Layer.Kind.SINGLE_VERSION || !Objects.equals(old.encodedColumns(), columns)
                || old.keepsAnswers() != (columns != null && keepsAnswers)) {
            return null; // the whole layer is built again, encoded for the columns asked
        }
        long oldLast = lastObjectId(old.generation());
        long newLast = lastObjectId(stamp);
        if (oldLast < 0 || newLast < oldLast) {
            return null;
        }
        String oldTime = lastModified(old.generation());
        if (oldTime.isEmpty() || !Character.isDigit(oldTime.charAt(0))) {
            return null; // no time to compare rows' LASTMOD_DATE with
        }
        long[] touched = touchedChannels(c, folder, oldLast, oldTime);
        List<ChannelSelection.Range> ranges = ranges(touched);
        if (ranges.size() > ChannelSelection.MAX_RANGES) {
            return null;
        }
        HeldRows fresh = null;
        if (touched.length > 0) {
            RowsBuilder b = new RowsBuilder(limit, columns, keepsAnswers);
            reader.browseRows(c, IovReader.spec(folder, Layer.SV, 0, ValidityKey.MAX, ChannelSelection.ranges(ranges)),
                    b::add);
            fresh = b.build(stamp, Layer.SV, channels);
        }
        RowsBuilder out = new RowsBuilder(limit, columns, keepsAnswers);
        int i = 0;
        int j = 0;
        int n = old.channelCount();
        int m = fresh == null ? 0 : fresh.channelCount();
        while (i < n || j < m) {
            long oldId = i < n ? old.channelIdAt(i) : Long.MAX_VALUE;
            long freshId = j < m ? fresh.channelIdAt(j) : Long.MAX_VALUE;
            if (freshId <= oldId) {
                out.copyChannel(fresh, j++);
                if (freshId == oldId) {
                    i++;
                }
            } else {
                if (Arrays.binarySearch(touched, oldId) < 0) {
                    out.copyChannel(old, i); // untouched: unchanged
                }
                i++; // a touched channel without rows now (not in the channel table) is dropped, as the browse does
            }
        }
        return out.build(stamp, Layer.SV, channels);
    }

    /** The sequence value in a stamp {@code "<CURRENT_VALUE>@<LASTMOD_DATE>"}, or -1. */
    static long lastObjectId(String stamp) {
        int at = stamp.indexOf('@');
        try {
            return at > 0 ? Long.parseLong(stamp.substring(0, at)) : -1;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** The time in a stamp {@code "<CURRENT_VALUE>@<LASTMOD_DATE>"}. */
    private static String lastModified(String stamp) {
        return stamp.substring(stamp.indexOf('@') + 1);
    }

    /** The channels with an object after {@code afterObjectId} or a row changed after {@code since}. */
    private static long[] touchedChannels(Connection c, Node folder, long afterObjectId, String since)
            throws SQLException {
        List<Long> ids = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT DISTINCT CHANNEL_ID FROM " + folder.iovTable()
                + " WHERE OBJECT_ID > ? OR LASTMOD_DATE > ? ORDER BY CHANNEL_ID")) {
            ps.setLong(1, afterObjectId);
            ps.setString(2, since);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getLong(1));
                }
            }
        }
        return ids.stream().mapToLong(Long::longValue).toArray();
    }

    /** Ascending ids as ranges of consecutive ids. */
    static List<ChannelSelection.Range> ranges(long[] ids) {
        List<ChannelSelection.Range> out = new ArrayList<>();
        for (int k = 0; k < ids.length; ) {
            int e = k;
            while (e + 1 < ids.length && ids[e + 1] == ids[e] + 1) {
                e++;
            }
            out.add(new ChannelSelection.Range(ids[k], ids[e]));
            k = e + 1;
        }
        return out;
    }
}
