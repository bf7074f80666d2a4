package io.outpost.store.write;

import io.outpost.store.StoreException;
import io.outpost.store.db.Dialect;
import io.outpost.store.db.Layer;
import io.outpost.store.model.ChannelSelection;
import io.outpost.store.model.Iov;
import io.outpost.store.model.Node;
import io.outpost.store.read.IovReader;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * COOL's truncateObjectValidity: the open-ended IOVs valid at a key in the selected channels of a single-version
 * folder end at that key instead. Every IOV valid there must be open-ended, or nothing changes.
 */
public final class ValidityTruncator {
    private final Dialect dialect;
    private final IovReader reader;

    public ValidityTruncator(Dialect dialect, IovReader reader) {
        this.dialect = dialect;
        this.reader = reader;
    }

    /** Truncates inside the caller's transaction; returns how many IOVs now end at {@code until}. */
    public int truncate(Connection c, Node folder, long until, ChannelSelection sel, String now) throws SQLException {
        if (folder.isMultiVersion()) {
            throw StoreException.badArgument("'" + folder.path() + "' is multi-version: only single-version folders"
                    + " can truncate IOVs (a multi-version folder stores a new version instead)");
        }
        if (until < 0) {
            throw StoreException.badKey("truncation key " + until + " is negative");
        }
        FolderLock lock = FolderLock.acquire(c, dialect, folder);
        List<Iov> valid = new ArrayList<>();
        reader.browse(c, IovReader.spec(folder, Layer.SV, until, until, sel), valid::add);
        long[] ids = new long[valid.size()];
        long[] untils = new long[valid.size()];
        for (int i = 0; i < ids.length; i++) {
            Iov iov = valid.get(i);
            if (!iov.isOpenEnded()) {
                throw new StoreException(StoreException.Kind.INVALID_KEY, "channel " + iov.channelId() + ": the IOV"
                        + " valid at " + until + " is [" + iov.since() + ", " + iov.until() + "), not open-ended;"
                        + " only open-ended IOVs can be truncated");
            }
            if (iov.since() == until) {
                // COOL would leave an empty [t, t) interval behind; an IOV is never empty here.
                throw new StoreException(StoreException.Kind.INVALID_KEY, "channel " + iov.channelId() + ": the IOV"
                        + " valid at " + until + " starts there; truncating it would leave an empty interval");
            }
            ids[i] = iov.objectId();
            untils[i] = until;
        }
        dialect.executeForEach(c, "UPDATE " + folder.iovTable() + " SET LASTMOD_DATE = ?, IOV_UNTIL = ? WHERE OBJECT_ID = ?",
                now, untils, ids);
        lock.release(now);
        return ids.length;
    }
}
