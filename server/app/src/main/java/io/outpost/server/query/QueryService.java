package io.outpost.server.query;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.outpost.server.answer.PipelinedEncoder;
import io.outpost.server.cache.Answer;
import io.outpost.server.config.OutpostProperties;
import io.outpost.server.rows.HeldRows;
import io.outpost.server.rows.RowStore;
import io.outpost.store.Failures;
import io.outpost.store.IovStore;
import io.outpost.store.StoreException;
import io.outpost.store.model.Channel;
import io.outpost.store.model.Iov;
import io.outpost.store.model.Node;
import io.outpost.store.model.PayloadField;
import io.outpost.store.model.Tag;
import io.outpost.store.model.TagLock;
import io.outpost.store.model.ValidityKey;
import io.outpost.store.read.IovReader;
import io.outpost.store.read.TagResolver;
import io.outpost.wire.AnswerKind;
import io.outpost.wire.Codec;
import io.outpost.wire.Column;
import io.outpost.wire.ColumnType;
import io.outpost.wire.TableEncoder;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.springframework.stereotype.Service;

/** Runs one native query against the store and encodes the answer (binary or JSON). */
@Service
public class QueryService implements AutoCloseable {
    private static final List<Column> NODE_COLUMNS = List.of(new Column("path", ColumnType.STRING255),
            new Column("folder", ColumnType.BOOL), new Column("versioning", ColumnType.STRING255),
            new Column("keyType", ColumnType.STRING255), new Column("payloadSpec", ColumnType.STRING4K),
            new Column("description", ColumnType.STRING4K));
    private static final List<Column> CHANNEL_COLUMNS = List.of(new Column("channel", ColumnType.UINT32),
            new Column("name", ColumnType.STRING255), new Column("description", ColumnType.STRING255));
    private static final List<Column> TAG_COLUMNS = List.of(new Column("name", ColumnType.STRING255),
            new Column("node", ColumnType.STRING255), new Column("kind", ColumnType.STRING255),
            new Column("lock", ColumnType.STRING255), new Column("description", ColumnType.STRING4K),
            new Column("insertionTime", ColumnType.STRING255));
    private static final List<Column> COUNT_COLUMNS = List.of(new Column("count", ColumnType.UINT63));

    private final IovStore store;
    private final Codec codec;
    private final int compressionLevel;
    private final Timer queryTimer;
    /** Channels covered by a selection, per folder generation: saves a query on every at-time answer. */
    private final com.github.benmanes.caffeine.cache.Cache<String, Long> channelCounts =
            com.github.benmanes.caffeine.cache.Caffeine.newBuilder().maximumSize(10_000).build();
    /** Encoders of browse answers run here, overlapping the database read (one thread per core). */
    private final java.util.concurrent.ExecutorService encoders = java.util.concurrent.Executors.newFixedThreadPool(
            Runtime.getRuntime().availableProcessors(), r -> {
                Thread t = new Thread(r, "outpost-encoder");
                t.setDaemon(true);
                return t;
            });

    private final RowStore rowStore;

    /** The encoder threads end with the application context (Spring closes an AutoCloseable bean). */
    @Override
    public void close() {
        encoders.shutdownNow();
    }

    public QueryService(IovStore store, OutpostProperties props, MeterRegistry registry, RowStore rowStore) {
        this.store = store;
        this.rowStore = rowStore;
        this.codec = Codec.parse(props.cache().codec());
        this.compressionLevel = props.cache().compressionLevel();
        this.queryTimer = Timer.builder("outpost.query.time").description("database time of native queries")
                .publishPercentiles(0.5, 0.9, 0.99).register(registry);
    }

    private TableEncoder encoder(Query q) {
        return q.format().encoder(codec, compressionLevel);
    }

    /** Computes the answer of {@code q}; {@code node} is the catalog's node for q.path() (null for NODES). */
    public Answer load(Query q, Node node, String generation) {
        return queryTimer.record(() -> switch (q.op()) {
            case NODES -> nodes(q, generation);
            case CHANNELS -> channels(q, folder(node), generation);
            case TAGS -> tags(q, node, generation);
            case TAG -> tag(q, folder(node), generation);
            case AT, BROWSE, COUNT -> iovs(q, folder(node), generation);
        });
    }

    private static Node folder(Node n) {
        if (!n.isFolder()) {
            throw new StoreException(StoreException.Kind.FOLDER_NOT_FOUND, "'" + n.path()
                    + "' is a folderset, not a folder: it holds no IOVs or channels");
        }
        return n;
    }

    private Answer nodes(Query q, String generation) {
        TableEncoder e = encoder(q);
        e.begin(AnswerKind.NODES, "", "", 0, 0, NODE_COLUMNS);
        for (Node n : store.listNodes()) {
            e.row(new Object[] {n.path(), n.isFolder(), n.isFolder() ? n.versioning().shortName() : null,
                n.isFolder() ? n.keyType().label() : null, n.isFolder() ? n.payloadSpec().toString() : null,
                n.description()});
        }
        return done(e, 0, 0, false, false, generation);
    }

    private Answer channels(Query q, Node folder, String generation) {
        TableEncoder e = encoder(q);
        e.begin(AnswerKind.CHANNELS, folder.path(), "", 0, 0, CHANNEL_COLUMNS);
        for (Channel c : store.channels(folder)) {
            e.row(new Object[] {c.id(), c.name(), c.description()});
        }
        return done(e, 0, 0, false, false, generation);
    }

    private Answer tags(Query q, Node node, String generation) {
        TableEncoder e = encoder(q);
        e.begin(AnswerKind.TAGS, node.path(), "", 0, 0, TAG_COLUMNS);
        for (Tag t : store.tags(node)) {
            e.row(tagRow(t, node.path()));
        }
        return done(e, 0, 0, false, false, generation);
    }

    private Answer tag(Query q, Node folder, String generation) {
        Tag t = store.resolveTag(folder, q.tag());
        TableEncoder e = encoder(q);
        e.begin(AnswerKind.TAG, folder.path(), q.tag(), 0, 0, TAG_COLUMNS);
        e.row(tagRow(t, folder.path()));
        return done(e, 0, 0, false, false, generation);
    }

    private static Object[] tagRow(Tag t, String nodePath) {
        String lock = switch (t.lock()) {
            case UNLOCKED -> "unlocked";
            case LOCKED -> "locked";
            case PARTIALLY_LOCKED -> "partial";
        };
        return new Object[] {t.name(), nodePath, t.kind().name().toLowerCase(Locale.ROOT), lock, t.description(),
            t.insertionTime()};
    }

    private Answer iovs(Query q, Node folder, String generation) {
        store.requireCovered(folder, q.tag(), q.t1(), q.t2()); // offline snapshots: also for held rows
        if (rowStore.enabled()) {
            RowStore.State state = rowStore.state(folder, q.tag());
            HeldRows held = rowStore.rows(folder, state);
            if (held != null) {
                return HeldAnswers.answer(q, folder, held, state.tag(), encoder(q), generation);
            }
        }
        if (q.op() == Op.AT) {
            return at(q, folder, generation,
                    (out, count) -> store.read(folder, q.tag(), q.t1(), q.t2(), q.channels(), out, count),
                    t -> store.neighbours(folder, q.tag(), t));
        }
        TableEncoder e = encoder(q);
        if (q.op() == Op.COUNT) {
            IovStore.ReadResult r = store.read(folder, q.tag(), q.t1(), q.t2(), q.channels(), null, false);
            e.begin(AnswerKind.COUNT, folder.path(), tagLabel(q, folder), 0, 0, COUNT_COLUMNS);
            e.row(new Object[] {r.rows()});
            return done(e, 0, 0, false, locked(r), generation);
        }
        List<Column> columns = iovColumns(folder);
        boolean[] openEnded = {false};
        e.begin(AnswerKind.IOVS, folder.path(), tagLabel(q, folder), 0, 0, columns);
        PipelinedEncoder pipe = new PipelinedEncoder(e, encoders);
        IovStore.ReadResult r;
        try {
            r = store.read(folder, q.tag(), q.t1(), q.t2(), q.channels(), iov -> {
                openEnded[0] |= iov.isOpenEnded();
                pipe.row(values(iov));
            }, false);
        } catch (RuntimeException failed) {
            pipe.abandon();
            throw failed;
        }
        byte[] body = pipe.finish();
        return new Answer(body, e.contentType(), e.rows(), 0, 0, openEnded[0], locked(r), generation, null);
    }

    /** One at-time read of the store: streams the rows to {@code out}, counting the selected channels if asked. */
    private interface AtRead {
        IovStore.ReadResult read(IovReader.IovConsumer out, boolean countChannels);
    }

    /**
     * The at-time answer of {@code q} computed inside the caller's read transaction {@code c} at the folder stamp
     * {@code generation}, for a batch of folders whose stamps the caller reads together before and after its reads:
     * from held rows (built here on {@code c} if needed; kept by the caller's {@code keepAfterCheck} once the stamps
     * are checked) or, for a layer too big to hold, from the database.
     */
    public Answer loadAt(Connection c, Query q, Node folder, String generation, List<Runnable> keepAfterCheck) {
        if (q.op() != Op.AT) {
            throw new IllegalArgumentException("not an at-time query: " + q.op());
        }
        Node f = folder(folder);
        return queryTimer.record(() -> {
            try {
                store.requireCovered(f, q.tag(), q.t1(), q.t2());
                if (rowStore.enabled()) {
                    RowStore.State state = rowStore.stateIn(c, f, q.tag(), generation);
                    HeldRows held = rowStore.rowsIn(c, f, state, keepAfterCheck);
                    if (held != null) {
                        return HeldAnswers.answer(q, f, held, state.tag(), encoder(q), generation);
                    }
                }
                return at(q, f, generation, (out, count) -> {
                    try {
                        return store.read(c, f, q.tag(), q.t1(), q.t2(), q.channels(), out, count);
                    } catch (SQLException e) {
                        throw Failures.translate(e);
                    }
                }, t -> {
                    try {
                        return store.neighbours(c, f, q.tag(), t);
                    } catch (SQLException e) {
                        throw Failures.translate(e);
                    }
                });
            } catch (SQLException e) {
                throw Failures.translate(e);
            }
        });
    }

    /** The latest until at or before a key and the earliest since after it, in the read's layer. */
    private interface Neighbours {
        long[] around(long t);
    }

    private Answer at(Query q, Node folder, String generation, AtRead read, Neighbours neighbours) {
        // At most one row per channel: held until the validity range, which goes in the header, is known.
        List<Iov> rows = new ArrayList<>();
        String countKey = folder.path() + " " + generation + " " + ChannelSpelling.format(q.channels());
        Long known = channelCounts.getIfPresent(countKey);
        IovStore.ReadResult r = read.read(rows::add, known == null);
        long selected = known != null ? known : r.selectedChannels();
        channelCounts.put(countKey, selected);
        long[] hint = validity(q.t1(), rows, selected, neighbours);
        TableEncoder e = encoder(q);
        e.begin(AnswerKind.IOVS, folder.path(), tagLabel(q, folder), hint[0], hint[1], iovColumns(folder));
        boolean openEnded = false;
        for (Iov iov : rows) {
            openEnded |= iov.isOpenEnded();
            e.row(values(iov));
        }
        return done(e, hint[0], hint[1], openEnded, locked(r), generation);
    }

    private static boolean locked(IovStore.ReadResult r) {
        return r.tag() != null && r.tag().lock() == TagLock.LOCKED;
    }

    /**
     * The tag an answer names: the asked tag, or HEAD — also for a single-version folder read through a global tag,
     * which has no tags and is read at its HEAD, so the answer says what it holds.
     */
    static String tagLabel(Query q, Node folder) {
        return TagResolver.isHead(q.tag()) || !folder.isMultiVersion() ? "HEAD" : q.tag();
    }

    /**
     * The keys for which this at-time answer stays the same at its generation: [max since, min until) of the rows
     * at t, narrowed, when some selected channel has no row at t, by the gap that channel is in (the latest until
     * at or before t, the earliest since after it). A channel in a gap does not make the answer valid at t alone.
     */
    private static long[] validity(long t, List<Iov> rows, long selectedChannels, Neighbours neighbours) {
        long since = 0;
        long until = ValidityKey.MAX;
        for (Iov iov : rows) {
            since = Math.max(since, iov.since());
            until = Math.min(until, iov.until());
        }
        if (rows.size() != selectedChannels) {
            long[] gap = neighbours.around(t);
            since = Math.max(since, gap[0]);
            until = Math.min(until, gap[1]);
        }
        return new long[] {since, until};
    }

    public static List<Column> iovColumns(Node folder) {
        List<Column> cols = new ArrayList<>();
        cols.add(new Column("channel", ColumnType.UINT32));
        cols.add(new Column("since", ColumnType.UINT63));
        cols.add(new Column("until", ColumnType.UINT63));
        for (PayloadField f : folder.payloadSpec().fields()) {
            cols.add(new Column(f.name(), f.type().columnType()));
        }
        return cols;
    }

    private static Object[] values(Iov iov) {
        Object[] p = iov.payload();
        Object[] v = new Object[3 + p.length];
        v[0] = iov.channelId();
        v[1] = iov.since();
        v[2] = iov.until();
        System.arraycopy(p, 0, v, 3, p.length);
        return v;
    }

    private static Answer done(TableEncoder e, long validSince, long validUntil, boolean openEnded, boolean immutable,
                               String generation) {
        byte[] body = e.finish();
        return new Answer(body, e.contentType(), e.rows(), validSince, validUntil, openEnded, immutable, generation, null);
    }
}
