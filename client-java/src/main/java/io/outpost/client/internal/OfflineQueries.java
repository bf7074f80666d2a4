package io.outpost.client.internal;

import io.outpost.client.ChannelInfo;
import io.outpost.client.ChannelSelection;
import io.outpost.client.Iov;
import io.outpost.client.NodeInfo;
import io.outpost.client.Order;
import io.outpost.client.OutpostException;
import io.outpost.client.TagInfo;
import java.util.List;

/**
 * The client's queries answered from an offline snapshot file instead of a server. The implementation
 * ({@code io.outpost.client.offline.SnapshotQueries}) reads the file with the store's own code, which the client
 * does not depend on at run time unless offline mode is used: it is loaded by name, so applications that only
 * talk HTTP need neither the store nor a JDBC driver on their class path.
 */
public interface OfflineQueries extends AutoCloseable {
    String IMPLEMENTATION = "io.outpost.client.offline.SnapshotQueries";

    List<NodeInfo> nodes() throws OutpostException;

    List<ChannelInfo> channels(String folder) throws OutpostException;

    List<TagInfo> tags(String node) throws OutpostException;

    TagInfo resolveTag(String folder, String tag) throws OutpostException;

    List<Iov> objectsAt(String folder, String tag, ChannelSelection channels, long t) throws OutpostException;

    List<Iov> browse(String folder, String tag, long t1, long t2, ChannelSelection channels, Order order)
            throws OutpostException;

    long count(String folder, String tag, long t1, long t2, ChannelSelection channels) throws OutpostException;

    @Override
    void close();

    /** Opens the snapshot file; fails clearly when the store is not on the class path or the file is missing. */
    static OfflineQueries open(String file) {
        Class<?> impl;
        try {
            impl = Class.forName(IMPLEMENTATION);
        } catch (ClassNotFoundException | LinkageError e) {
            throw new IllegalStateException("offline mode (server sqlite:" + file + ") reads the snapshot with the"
                    + " store, which is not on the class path: add the dependency io.outpost:outpost-store (it brings"
                    + " the SQLite driver), or put the loader jar outpost-store-VERSION-loader.jar on the class path",
                    e);
        }
        try {
            return (OfflineQueries) impl.getConstructor(String.class).newInstance(file);
        } catch (java.lang.reflect.InvocationTargetException e) {
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            throw new IllegalStateException("cannot open snapshot '" + file + "': " + e.getCause(), e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot open snapshot '" + file + "': " + e, e);
        }
    }

    static OutpostException unsupported(String what) {
        return new OutpostException(OutpostException.Kind.REJECTED, what + " is not available in offline mode");
    }
}
