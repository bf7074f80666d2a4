package io.outpost.server.rows;

import io.outpost.frontier.HeldFolderReads;
import io.outpost.frontier.sql.CoolRead;
import io.outpost.store.IovStore;
import io.outpost.store.db.Layer;
import io.outpost.store.model.Channel;
import io.outpost.store.model.ChannelSelection;
import io.outpost.store.model.Node;
import io.outpost.store.model.PayloadField;
import io.outpost.store.model.StorageType;
import io.outpost.store.read.Metadata;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * COOL's IOV reads through Frontier answered from the same held rows as the native API ({@link RowStore}): the
 * folder's stamp is read on the Frontier request's own connection, and the layer held at exactly that stamp gives
 * the rows. The layer is the statement's: a single-version folder's rows, a multi-version folder's HEAD or user tag,
 * or one of its standard tags (an id that is not a tag of the folder is left to the database). Every column of COOL's
 * IOV row (a standard tag's from its objects' rows, as the held rows keep them) and of its tag row except the tag's
 * own SYS_INSTIME, and payload columns whose database text is the value's own (integers, booleans, strings, BLOBs:
 * not Float or Double, whose text each database writes its own way); anything else is left to the database.
 */
public final class HeldFrontierReads implements HeldFolderReads {
    private static final int CHANNEL = -1;
    private static final int SINCE = -2;
    private static final int UNTIL = -3;
    /** A column whose value is the same in every row of the layer (a standard tag's TAG_ID). */
    private static final int CONSTANT = -4;
    private static final int OBJECT_ID = -5;
    private static final int USER_TAG_ID = -6;
    private static final int SYS_INSTIME = -7;
    private static final int LASTMOD_DATE = -8;
    private static final int ORIGINAL_ID = -9;
    private static final int NEW_HEAD_ID = -10;
    private static final int NOT_HELD = Integer.MIN_VALUE;
    /** A statement naming a table not known yet re-reads the folder list at most this often. */
    private static final long RELOAD_NANOS = 1_000_000_000L;

    private final IovStore store;
    private final RowStore rows;
    private final Metadata meta;
    private volatile Map<String, Node> foldersByIovTable = Map.of();
    /** Per held layer: whether every channel with rows is in the folder's channel table (the join keeps them all). */
    private final com.github.benmanes.caffeine.cache.Cache<HeldRows, Boolean> allChannelsKnown =
            com.github.benmanes.caffeine.cache.Caffeine.newBuilder().weakKeys().build();
    private volatile long loadedAt = System.nanoTime() - 2 * RELOAD_NANOS;

    public HeldFrontierReads(IovStore store, RowStore rows) {
        this.store = store;
        this.rows = rows;
        this.meta = new Metadata(store.database().prefix());
    }

    @Override
    public Rows read(Connection c, CoolRead read) throws SQLException {
        if (!rows.enabled()) {
            return null;
        }
        Node folder = folder(read.iovTable());
        if (folder == null || folder.isMultiVersion() == (read.layer().kind() == Layer.Kind.SINGLE_VERSION)) {
            return null;
        }
        Object[] constants = new Object[read.columns().size()];
        int[] columns = columns(folder, read.layer(), read.columns(), constants);
        if (columns == null) {
            return null;
        }
        RowStore.State state = rows.layerStateIn(c, folder, read.layer(), meta.modificationStamp(c, folder));
        if (state == null) {
            return null; // not a tag of the folder: the database answers (no rows, as a rule)
        }
        HeldRows held = rows.rowsForFrontier(folder, state);
        if (held == null) {
            return null;
        }
        return new Rows() {
            @Override
            public String stamp() {
                return state.stamp();
            }

            @Override
            public Object layer() {
                return held;
            }

            @Override
            public void writeLayer(RowSink sink) throws IOException {
                try {
                    held.browse(Long.MIN_VALUE, Long.MAX_VALUE, ChannelSelection.all(),
                            (channel, r) -> emit(held, columns, constants, channel, r, sink));
                } catch (UncheckedIOException e) {
                    throw e.getCause();
                }
            }

            @Override
            public int select(IndexSink sink) {
                boolean join = read.joinsChannels() && !allChannelsKnown.get(held, HeldFrontierReads::allChannelsKnown);
                return HeldFrontierReads.select(held, read, join, sink);
            }
        };
    }

    /**
     * Where each selected column's value is: one of the IOV row's columns, CONSTANT (its value put in
     * {@code constants}) or a payload index; null if one is not held. A standard tag's tag table holds the interval
     * of each of its objects (copied when tagged: a multi-version row's interval never changes), its object's id, the
     * tag's id and the tagging time (not held); the rest of the row and the payload come from the objects.
     */
    private static int[] columns(Node folder, Layer layer, List<CoolRead.Selected> names, Object[] constants) {
        List<PayloadField> fields = folder.payloadSpec().fields();
        int[] out = new int[names.size()];
        for (int i = 0; i < out.length; i++) {
            CoolRead.Selected column = names.get(i);
            if (column.ofTagTable()) {
                out[i] = switch (column.name()) {
                    case "TAG_ID" -> CONSTANT;
                    case "CHANNEL_ID" -> CHANNEL;
                    case "IOV_SINCE" -> SINCE;
                    case "IOV_UNTIL" -> UNTIL;
                    case "OBJECT_ID" -> OBJECT_ID;
                    default -> NOT_HELD;
                };
                constants[i] = out[i] == CONSTANT ? Long.valueOf(layer.id()) : null;
            } else {
                out[i] = switch (column.name()) {
                    case "CHANNEL_ID" -> CHANNEL;
                    case "IOV_SINCE" -> SINCE;
                    case "IOV_UNTIL" -> UNTIL;
                    case "OBJECT_ID" -> OBJECT_ID;
                    case "USER_TAG_ID" -> USER_TAG_ID;
                    case "SYS_INSTIME" -> SYS_INSTIME;
                    case "LASTMOD_DATE" -> LASTMOD_DATE;
                    case "ORIGINAL_ID" -> ORIGINAL_ID;
                    case "NEW_HEAD_ID" -> NEW_HEAD_ID;
                    default -> payloadIndex(fields, column.name());
                };
            }
            if (out[i] == NOT_HELD) {
                return null;
            }
        }
        return out;
    }

    private static int payloadIndex(List<PayloadField> fields, String name) {
        for (int k = 0; k < fields.size(); k++) {
            PayloadField f = fields.get(k);
            if (f.column().equals(name)) {
                return f.type() == StorageType.FLOAT || f.type() == StorageType.DOUBLE ? NOT_HELD : k;
            }
        }
        return NOT_HELD;
    }

    private Node folder(String iovTable) {
        Node n = foldersByIovTable.get(iovTable);
        if (n == null && System.nanoTime() - loadedAt > RELOAD_NANOS) {
            synchronized (this) {
                if (System.nanoTime() - loadedAt > RELOAD_NANOS) {
                    Map<String, Node> next = new HashMap<>();
                    for (Node node : store.listNodes()) {
                        if (node.isFolder()) {
                            next.put(node.iovTable().toUpperCase(Locale.ROOT), node);
                        }
                    }
                    foldersByIovTable = next;
                    loadedAt = System.nanoTime();
                }
            }
            n = foldersByIovTable.get(iovTable);
        }
        return n;
    }

    /**
     * The rows the statement selects, in its order (channel, then since). At one key they are the rows whose interval
     * holds it; otherwise, per channel, those from the latest since at or before the probe key on, within the bounds.
     */
    private static int select(HeldRows held, CoolRead read, boolean join, IndexSink sink) {
        long first = Math.max(0, read.firstChannel());
        long last = Math.min(Channel.MAX_ID, read.lastChannel());
        if (first > last) {
            return 0;
        }
        ChannelSelection sel = first == 0 && last == Channel.MAX_ID ? ChannelSelection.all()
                : ChannelSelection.range(first, last);
        int[] n = {0};
        long[] known = {-1, 0}; // the last channel checked against the channel table, and whether it is there
        if (read.isAtTime()) {
            held.browse(read.probeKey(), read.probeKey(), sel, (channel, r) -> {
                if (inChannelTable(held, join, channel, known)) {
                    sink.row(r);
                    n[0]++;
                }
            });
        } else {
            Map<Long, Long> latestSince = new HashMap<>();
            held.browse(Long.MIN_VALUE, read.probeKey(), sel, (channel, r) -> latestSince.put(channel, held.since(r)));
            held.browse(read.untilAfter(), read.sinceAtMost(), sel, (channel, r) -> {
                long from = latestSince.getOrDefault(channel, read.probeKey());
                if (held.since(r) >= from && held.until(r) > read.untilAfter()
                        && inChannelTable(held, join, channel, known)) {
                    sink.row(r);
                    n[0]++;
                }
            });
        }
        return n[0];
    }

    /** Whether every channel with rows in the layer is one of the folder's channels (as the store keeps them). */
    private static boolean allChannelsKnown(HeldRows held) {
        long[] last = {-1};
        boolean[] all = {true};
        held.browse(Long.MIN_VALUE, Long.MAX_VALUE, ChannelSelection.all(), (channel, r) -> {
            if (channel != last[0]) {
                last[0] = channel;
                all[0] &= held.selectedChannels(ChannelSelection.channel(channel)) > 0;
            }
        });
        return all[0];
    }

    /** With the channel table joined, only channels it holds (looked up once per channel). */
    private static boolean inChannelTable(HeldRows held, boolean join, long channel, long[] known) {
        if (!join) {
            return true;
        }
        if (known[0] != channel) {
            known[0] = channel;
            known[1] = held.selectedChannels(ChannelSelection.channel(channel));
        }
        return known[1] > 0;
    }

    private static void emit(HeldRows held, int[] columns, Object[] constants, long channel, int r, RowSink sink) {
        Object[] payload = held.payload(r);
        Object[] v = new Object[columns.length];
        for (int i = 0; i < columns.length; i++) {
            v[i] = switch (columns[i]) {
                case CHANNEL -> channel;
                case SINCE -> held.since(r);
                case UNTIL -> held.until(r);
                case CONSTANT -> constants[i];
                case OBJECT_ID -> held.objectId(r);
                case USER_TAG_ID -> held.userTagId(r);
                case SYS_INSTIME -> held.insertionTime(r);
                case LASTMOD_DATE -> held.lastModDate(r);
                case ORIGINAL_ID -> held.originalId(r);
                case NEW_HEAD_ID -> held.newHeadId(r);
                default -> payload[columns[i]];
            };
        }
        try {
            sink.row(r, v);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
