package io.outpost.store.write;

import io.outpost.store.db.Dialect;
import io.outpost.store.model.Node;
import java.sql.Connection;
import java.sql.PreparedStatement;
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
        try (PreparedStatement ins = c.prepareStatement(dialect.insertChannelIfMissingSql(folder.channelTable()))) {
            for (long ch : channels) {
                ins.setLong(1, ch);
                ins.addBatch();
            }
            ins.executeBatch();
        }
        try (PreparedStatement up = c.prepareStatement("UPDATE " + folder.channelTable()
                + " SET HAS_NEW_DATA = 1 WHERE CHANNEL_ID = ?")) {
            for (long ch : channels) {
                up.setLong(1, ch);
                up.addBatch();
            }
            up.executeBatch();
        }
    }

    /** Clears the flags; channels in {@code lastObject} also get their new last object id. */
    static void finish(Connection c, Node folder, Collection<Long> channels, Map<Long, Long> lastObject) throws SQLException {
        try (PreparedStatement last = c.prepareStatement("UPDATE " + folder.channelTable()
                + " SET LAST_OBJECT_ID = ?, HAS_NEW_DATA = 0 WHERE CHANNEL_ID = ?");
             PreparedStatement clear = c.prepareStatement("UPDATE " + folder.channelTable()
                     + " SET HAS_NEW_DATA = 0 WHERE CHANNEL_ID = ?")) {
            boolean anyClear = false;
            for (long ch : channels) {
                Long id = lastObject.get(ch);
                if (id != null) {
                    last.setLong(1, id);
                    last.setLong(2, ch);
                    last.addBatch();
                } else {
                    clear.setLong(1, ch);
                    clear.addBatch();
                    anyClear = true;
                }
            }
            if (!lastObject.isEmpty()) {
                last.executeBatch();
            }
            if (anyClear) {
                clear.executeBatch();
            }
        }
    }
}
