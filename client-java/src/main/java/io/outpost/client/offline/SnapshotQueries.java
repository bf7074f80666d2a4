package io.outpost.client.offline;

import io.outpost.client.ChannelInfo;
import io.outpost.client.ChannelSelection;
import io.outpost.wire.Column;
import io.outpost.wire.ColumnType;
import io.outpost.client.Iov;
import io.outpost.client.NodeInfo;
import io.outpost.client.Order;
import io.outpost.client.OutpostException;
import io.outpost.client.Row;
import io.outpost.wire.Schema;
import io.outpost.client.TagInfo;
import io.outpost.client.internal.OfflineQueries;
import io.outpost.store.IovStore;
import io.outpost.store.StoreException;
import io.outpost.store.db.DatabaseConfig;
import io.outpost.store.model.ChannelOrder;
import io.outpost.store.model.Node;
import io.outpost.store.model.PayloadField;
import io.outpost.store.model.Tag;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * Offline mode: the client's queries answered from a snapshot file by the store, the same code the service runs,
 * so rows, tag resolution and "not covered" refusals are the service's. Rows are given the Java types the wire
 * decoder gives (docs/wire-format.md), so an application cannot tell the two modes apart by their values.
 */
public final class SnapshotQueries implements OfflineQueries {
    private final IovStore store;

    public SnapshotQueries(String file) {
        if (!Files.isRegularFile(Path.of(file))) {
            throw new IllegalArgumentException("no snapshot file '" + file + "'");
        }
        // Small pools: one application thread or a few; the file is only read.
        this.store = IovStore.open(DatabaseConfig.of("jdbc:sqlite:" + file).withPools(2, 1));
    }

    @Override
    public List<NodeInfo> nodes() throws OutpostException {
        return call(() -> store.listNodes().stream().map(n -> new NodeInfo(n.path(), n.isFolder(),
                n.isFolder() ? n.versioning().shortName() : null, n.isFolder() ? n.keyType().label() : null,
                n.isFolder() ? n.payloadSpec().toString() : null, n.description())).toList());
    }

    @Override
    public List<ChannelInfo> channels(String folder) throws OutpostException {
        return call(() -> store.channels(store.folder(folder)).stream()
                .map(c -> new ChannelInfo(c.id(), c.name(), c.description())).toList());
    }

    @Override
    public List<TagInfo> tags(String node) throws OutpostException {
        return call(() -> {
            Node n = store.node(node);
            return store.tags(n).stream().map(t -> tagInfo(t, n.path())).toList();
        });
    }

    @Override
    public TagInfo resolveTag(String folder, String tag) throws OutpostException {
        return call(() -> {
            Node f = store.folder(folder);
            return tagInfo(store.resolveTag(f, tag), f.path());
        });
    }

    @Override
    public List<Iov> objectsAt(String folder, String tag, ChannelSelection channels, long t) throws OutpostException {
        return browse(folder, tag, t, t, channels, Order.CHANNEL_SINCE);
    }

    @Override
    public List<Iov> browse(String folder, String tag, long t1, long t2, ChannelSelection channels, Order order)
            throws OutpostException {
        return call(() -> {
            Node f = store.folder(folder);
            Schema payload = payloadSchema(f);
            List<Iov> out = new ArrayList<>();
            store.browse(f, t1, t2, selection(channels).withOrder(order(order)), tag,
                    iov -> out.add(new Iov(iov.channelId(), iov.since(), iov.until(), new Row(payload, iov.payload()))));
            return out;
        });
    }

    @Override
    public long count(String folder, String tag, long t1, long t2, ChannelSelection channels) throws OutpostException {
        return call(() -> store.count(store.folder(folder), t1, t2, selection(channels), tag));
    }

    @Override
    public void close() {
        store.close();
    }

    private static TagInfo tagInfo(Tag t, String nodePath) {
        String lock = switch (t.lock()) {
            case UNLOCKED -> "unlocked";
            case LOCKED -> "locked";
            case PARTIALLY_LOCKED -> "partial";
        };
        return new TagInfo(t.name(), nodePath, t.kind().name().toLowerCase(Locale.ROOT), lock, t.description(),
                t.insertionTime());
    }

    private static Schema payloadSchema(Node f) {
        List<Column> cols = new ArrayList<>();
        for (PayloadField p : f.payloadSpec().fields()) {
            cols.add(new Column(p.name(), ColumnType.ofWireName(p.type().coolName())));
        }
        return new Schema(cols);
    }

    /** The client's selection in the store's terms, through its canonical spelling. */
    static io.outpost.store.model.ChannelSelection selection(ChannelSelection s) {
        if (s.isAll()) {
            return io.outpost.store.model.ChannelSelection.all();
        }
        if (s.name() != null) {
            return io.outpost.store.model.ChannelSelection.named(s.name());
        }
        List<io.outpost.store.model.ChannelSelection.Range> ranges = new ArrayList<>();
        for (String part : s.pathSegment().split(",")) {
            int dash = part.indexOf('-');
            long first = Long.parseLong(dash < 0 ? part : part.substring(0, dash));
            long last = dash < 0 ? first : Long.parseLong(part.substring(dash + 1));
            ranges.add(new io.outpost.store.model.ChannelSelection.Range(first, last));
        }
        return io.outpost.store.model.ChannelSelection.ranges(ranges);
    }

    private static ChannelOrder order(Order o) {
        return switch (o) {
            case CHANNEL_SINCE -> ChannelOrder.CHANNEL_BEFORE_SINCE;
            case SINCE_CHANNEL -> ChannelOrder.SINCE_BEFORE_CHANNEL;
            case CHANNEL_SINCE_DESC -> ChannelOrder.CHANNEL_BEFORE_SINCE_DESC;
            case SINCE_DESC_CHANNEL -> ChannelOrder.SINCE_DESC_BEFORE_CHANNEL;
        };
    }

    /** Store failures as the client reports the service's answers: 404 not found, other 4xx rejected. */
    private static <T> T call(Supplier<T> query) throws OutpostException {
        try {
            return query.get();
        } catch (StoreException e) {
            throw switch (e.kind().category()) {
                case NOT_FOUND -> new OutpostException(OutpostException.Kind.NOT_FOUND, e.getMessage(), 404, e);
                case BAD_INPUT -> new OutpostException(OutpostException.Kind.REJECTED, e.getMessage(), 400, e);
                case CONFLICT -> new OutpostException(OutpostException.Kind.REJECTED, e.getMessage(), 409, e);
                case UNAVAILABLE -> new OutpostException(OutpostException.Kind.UNAVAILABLE, e.getMessage(), 503, e);
            };
        }
    }
}
