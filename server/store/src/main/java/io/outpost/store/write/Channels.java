package io.outpost.store.write;

import io.outpost.store.db.Dialect;
import io.outpost.store.model.Node;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Collection;
import java.util.Map;

/**
 * Channel bookkeeping for writers, each step one batched statement whatever the number of channels:
 * create missing channels, flag the touched ones HAS_NEW_DATA, and finally store their last-object pointers.
 */
final class Channels {
    private Channels() {
    }

    static void ensureAndFlag(Connection c, Dialect dialect, Node folder, Collection<Long> channels) throws SQLException {
        long[] ids = channels.stream().mapToLong(Long::longValue).toArray();
        dialect.executeForEach(c, dialect.insertChannelIfMissingSql(folder.channelTable()), null, ids);
        dialect.executeForEach(c, "UPDATE " + folder.channelTable() + " SET HAS_NEW_DATA = 1 WHERE CHANNEL_ID = ?", null, ids);
    }

    /** Clears the flags; channels in {@code lastObject} also get their new last object id. */
    static void finish(Connection c, Dialect dialect, Node folder, Collection<Long> channels, Map<Long, Long> lastObject)
            throws SQLException {
        long[] moved = new long[lastObject.size()];
        long[] last = new long[lastObject.size()];
        long[] cleared = new long[channels.size() - lastObject.size()];
        int m = 0;
        int k = 0;
        for (long ch : channels) {
            Long id = lastObject.get(ch);
            if (id != null) {
                moved[m] = ch;
                last[m++] = id;
            } else {
                cleared[k++] = ch;
            }
        }
        dialect.executeForEach(c, "UPDATE " + folder.channelTable()
                + " SET LAST_OBJECT_ID = ?, HAS_NEW_DATA = 0 WHERE CHANNEL_ID = ?", null, last, moved);
        if (cleared.length > 0) {
            dialect.executeForEach(c, "UPDATE " + folder.channelTable() + " SET HAS_NEW_DATA = 0 WHERE CHANNEL_ID = ?",
                    null, cleared);
        }
    }
}
