package io.outpost.loadtest;

import io.outpost.store.IovStore;
import io.outpost.store.db.Layer;
import io.outpost.store.model.ChannelSelection;
import io.outpost.store.model.Node;
import io.outpost.store.read.IovReader;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Direct mode: JDBC to the database with exactly the SQL the service runs for the same query (the store's browse
 * of {@link IovReader#spec}). Folder and layer are resolved once per folder, as a COOL client holding an open
 * folder would; each request is then one browse statement.
 */
public final class DirectTarget implements Target {
    private record Resolved(Node folder, Layer layer) {
    }

    private final IovStore store;
    private final Map<String, Resolved> folders = new ConcurrentHashMap<>();

    public DirectTarget(IovStore store) {
        this.store = store;
    }

    @Override
    public Mode mode() {
        return Mode.DIRECT;
    }

    @Override
    public Outcome execute(Query q, long seq) {
        Resolved r = folders.computeIfAbsent(q.folder(), p -> {
            Node f = store.folder(p);
            return new Resolved(f, store.layer(f, "HEAD"));
        });
        long[] bytes = {0};
        long rows = store.browse(IovReader.spec(r.folder(), r.layer(), q.t1(), q.t2(), ChannelSelection.all()),
                iov -> bytes[0] += 24 + valueBytes(iov.payload()));
        if (q.expectedRows() >= 0 && rows != q.expectedRows()) {
            throw new Failure.FailedRequest(Failure.WRONG_ROWS, q.folder() + ": " + rows + " rows, expected " + q.expectedRows());
        }
        return new Outcome(bytes[0], rows, null);
    }

    /** Bytes of decoded payload values: strings and blobs by length, numbers by their width. */
    static long valueBytes(Object[] values) {
        long n = 0;
        if (values == null) {
            return 0;
        }
        for (Object v : values) {
            n += switch (v) {
                case null -> 0;
                case String s -> s.length();
                case byte[] b -> b.length;
                case Long l -> 8;
                case Double d -> 8;
                case Integer i -> 4;
                case Float f -> 4;
                case Short s -> 2;
                default -> 1;
            };
        }
        return n;
    }
}
