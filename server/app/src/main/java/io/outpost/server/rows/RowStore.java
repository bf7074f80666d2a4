package io.outpost.server.rows;

import com.github.benmanes.caffeine.cache.AsyncCache;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.outpost.server.query.QueryService;
import io.outpost.store.IovStore;
import io.outpost.store.db.Layer;
import io.outpost.store.flight.SingleFlight;
import io.outpost.store.model.Channel;
import io.outpost.store.model.ChannelSelection;
import io.outpost.store.model.Node;
import io.outpost.store.model.Tag;
import io.outpost.store.model.TagKind;
import io.outpost.store.model.ValidityKey;
import io.outpost.store.read.IovReader;
import io.outpost.store.read.Metadata;
import io.outpost.store.read.TagResolver;
import io.outpost.wire.Column;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.stereotype.Component;

/**
 * Hot folders' IOV rows in memory, one {@link HeldRows} per folder layer, bounded in bytes (Caffeine, least
 * recently/frequently used out first). Every use first reads the folder's modification stamp (and resolves the
 * tag) from the database in one small transaction, so an answer from memory is exactly what the database holds at
 * that moment. A layer is built by one full browse, once per stamp however many requests want it (single flight),
 * and kept only if the stamp was the same before and after the browse. A single-version layer held at an older
 * stamp is refreshed instead: only the channels with rows written since are read again ({@link IncrementalRefresh}).
 * Layers bigger than the per-folder budget are not held: the caller reads them from the database. That verdict is
 * remembered across generations (a write does not make a folder smaller), a single-version layer whose row count
 * (the sequence value in the stamp) alone exceeds the budget is not read at all, and the verdict is checked again
 * only after {@code too-big-retry}, by a build in the background that no request waits for.
 */
@Component
public class RowStore {
    private record Key(String folder, Layer layer) {
    }

    /** What one request needs before it can use held rows: the stamp now and the tag resolved now. */
    public record State(String stamp, Layer layer, Tag tag) {
    }

    /** A finished build: rows, or null when the layer is too big (or changed while read) at this stamp. */
    private record Built(String stamp, HeldRows rows) {
    }

    /** A folder's tag as found at a stamp: every tag change through the store bumps the folder's stamp. */
    private record TagAt(String stamp, Tag tag) {
    }

    /** A layer found too big: left to the database until {@code retryAt} (System.nanoTime()). */
    private record TooBigVerdict(long retryAt) {
    }

    private final IovStore store;
    private final Metadata meta;
    private final TagResolver tags;
    private final IovReader reader;
    private final boolean enabled;
    private final boolean encodeRows;
    private final boolean keepAnswers;
    private final long folderLimit;
    private final long maxWaitMillis;
    private final long tooBigRetryNanos;
    private final AsyncCache<Key, Built> cache;
    private final SingleFlight<Key, Built> flights;
    /** The tags Frontier statements named by id, each at the stamp it was found at (one lookup per tag and stamp). */
    private final Cache<Key, TagAt> tagsAtStamp =
            Caffeine.newBuilder().maximumSize(10_000).build();
    /**
     * Layers pushed out for room, with when (System.nanoTime()): until {@link #EVICTED_REST_NANOS} later they are not
     * built again, so that a budget too small for the folders in use keeps the layers it holds and answers the others
     * from the database, instead of reading whole layers that are pushed out again before they answer enough to pay
     * for their build. Small: one entry per folder layer.
     */
    private final Map<Key, Long> evictedAt = new ConcurrentHashMap<>();
    /** How long a layer pushed out for room is left to the database before it may be built again. */
    static final long EVICTED_REST_NANOS = 30_000_000_000L;
    /** Layers too big to hold; small (one entry per such folder layer) and never evicted by held rows. */
    private final Map<Key, TooBigVerdict> tooBigLayers = new ConcurrentHashMap<>();
    private final Counter builds;
    private final Counter tooBig;
    private final Counter refreshes;
    private final Counter resting;
    private final Counter answers;
    private final Counter frontierAnswers;
    /** Runs between a build's read of the rows and its second stamp read (tests: a write landing mid-build). */
    volatile Runnable afterRowsRead = () -> { };
    /** The latest background re-check of a too-big layer (tests wait for it). */
    volatile CompletableFuture<Void> lastRecheck = CompletableFuture.completedFuture(null);

    public RowStore(IovStore store, RowStoreProperties props, MeterRegistry registry) {
        this.store = store;
        this.meta = new Metadata(store.database().prefix());
        this.tags = new TagResolver(meta);
        this.reader = new IovReader(store.database().dialect(), store.database().statementTimeoutSeconds());
        this.enabled = props.enabled();
        this.encodeRows = props.encodedRows();
        this.keepAnswers = props.keepAnswers();
        long budget = props.budgetBytes();
        this.folderLimit = (long) (budget * props.maxFolderShare());
        this.maxWaitMillis = Math.max(1, store.database().statementTimeoutSeconds()) * 1000L;
        this.tooBigRetryNanos = props.tooBigRetry().toNanos();
        this.cache = Caffeine.newBuilder()
                .maximumWeight(budget)
                .weigher((Key k, Built b) -> (int) Math.min(Integer.MAX_VALUE, 256 + (b.rows == null ? 0 : b.rows.bytes())))
                .executor(Runnable::run) // evictions noted before the write that caused them returns
                .evictionListener((Key k, Built b, RemovalCause cause) -> {
                    if (k != null && cause == RemovalCause.SIZE) {
                        evictedAt.put(k, System.nanoTime());
                    }
                })
                .buildAsync();
        this.flights = new SingleFlight<>(cache.asMap());
        Gauge.builder("outpost.rows.bytes", cache, c -> c.synchronous().policy().eviction()
                .map(e -> e.weightedSize().orElse(0L)).orElse(0L)).description("bytes of IOV rows held").register(registry);
        this.builds = Counter.builder("outpost.rows.builds")
                .description("folder layer builds (whole reads and refreshes)").register(registry);
        this.tooBig = Counter.builder("outpost.rows.too.big")
                .description("folder layer builds given up because the layer exceeds the per-folder budget").register(registry);
        this.resting = Counter.builder("outpost.rows.resting")
                .description("reads of a folder layer pushed out for room shortly before, left to the database")
                .register(registry);
        this.refreshes = Counter.builder("outpost.rows.refreshes")
                .description("folder layer builds that re-read only the channels written since the last build")
                .register(registry);
        // by API: a native answer from held rows is an answer-cache load that did not query the database (the load
        // tests subtract them from the loads); a Frontier one never was a cache load
        this.answers = Counter.builder("outpost.rows.answers").description("IOV queries answered from held rows")
                .tag("api", "native").register(registry);
        this.frontierAnswers = Counter.builder("outpost.rows.answers")
                .description("IOV queries answered from held rows").tag("api", "frontier").register(registry);
    }

    public boolean enabled() {
        return enabled;
    }

    /** Reads the folder's stamp and resolves the tag, in one read transaction (tag errors are thrown here). */
    public State state(Node folder, String tag) {
        return store.read(c -> {
            TagResolver.ReadLayer read = tags.forRead(c, folder, tag);
            return new State(meta.modificationStamp(c, folder), read.layer(), read.tag());
        });
    }

    /** The held rows of the layer at {@code state}'s stamp, built if needed; null: read from the database. */
    public HeldRows rows(Node folder, State state) {
        return rows(folder, state, answers);
    }

    /** {@link #rows} for a Frontier read (counted apart: {@code outpost_rows_answers_total{api="frontier"}}). */
    public HeldRows rowsForFrontier(Node folder, State state) {
        return rows(folder, state, frontierAnswers);
    }

    private HeldRows rows(Node folder, State state, Counter counted) {
        Key key = new Key(folder.path(), state.layer());
        if (knownTooBig(key, folder, state) || resting(key)) {
            return null;
        }
        Built previous = null;
        for (int attempt = 0; attempt < 2; attempt++) {
            SingleFlight.Turn<Key, Built> turn = flights.turn(key);
            if (turn.leads()) {
                try {
                    return usable(build(key, folder, turn, previous), state, counted);
                } catch (RuntimeException e) {
                    return null; // the database read reports the failure to the caller
                }
            }
            Built b = turn.awaitOrNull(maxWaitMillis);
            if (b == null) {
                return null;
            }
            if (b.stamp.equals(state.stamp())) {
                return usable(b, state, counted);
            }
            previous = b; // an older stamp: refresh from it (or a newer one: rebuild at the current one)
            turn.forget();
        }
        return null;
    }

    /**
     * Whether the layer is not to be held: a verdict stands (a re-check is started when due), or, with nothing held
     * or being built, its row count alone shows it does not fit (the verdict is then given).
     */
    private boolean knownTooBig(Key key, Node folder, State state) {
        TooBigVerdict verdict = tooBigLayers.get(key);
        if (verdict != null) {
            recheckWhenDue(key, folder, verdict);
            return true;
        }
        if (tooBigByRowCount(state) && cache.getIfPresent(key) == null) {
            markTooBig(key);
            return true;
        }
        return false;
    }

    /** Whether the layer, not held, was pushed out for room less than {@link #EVICTED_REST_NANOS} ago. */
    private boolean resting(Key key) {
        Long at = evictedAt.get(key);
        if (at == null) {
            return false;
        }
        if (System.nanoTime() - at >= EVICTED_REST_NANOS) {
            evictedAt.remove(key, at);
            return false;
        }
        if (cache.getIfPresent(key) != null) {
            return false;
        }
        resting.increment();
        return true;
    }

    private void markTooBig(Key key) {
        tooBig.increment();
        tooBigLayers.put(key, new TooBigVerdict(System.nanoTime() + tooBigRetryNanos));
    }

    /** The columns binary answers of the folder have, for which its rows are held encoded; null: not encoded. */
    private List<Column> encodedColumns(Node folder) {
        return encodeRows ? QueryService.iovColumns(folder) : null;
    }

    /** The whole layer read on {@code c} into held rows of {@code stamp}. */
    private HeldRows buildAll(Connection c, Node folder, Layer layer, String stamp, List<Channel> channels)
            throws SQLException, RowsBuilder.TooBig {
        RowsBuilder all = new RowsBuilder(folderLimit, encodedColumns(folder), keepAnswers);
        reader.browseRows(c, IovReader.spec(folder, layer, 0, ValidityKey.MAX, ChannelSelection.all()), all::add);
        return all.build(stamp, layer, channels);
    }

    /**
     * A single-version layer holds every row its folder ever got (writes only insert, and close open IOVs in place);
     * the sequence value in the stamp counts them, so it alone can show the layer does not fit.
     */
    private boolean tooBigByRowCount(State state) {
        if (state.layer().kind() != Layer.Kind.SINGLE_VERSION) {
            return false;
        }
        long rows = IncrementalRefresh.lastObjectId(state.stamp());
        return rows > folderLimit / RowsBuilder.MIN_ROW_BYTES;
    }

    /** Starts one background build of a too-big layer once its verdict is due; requests meanwhile read the database. */
    private void recheckWhenDue(Key key, Node folder, TooBigVerdict verdict) {
        if (System.nanoTime() - verdict.retryAt() < 0
                || !tooBigLayers.replace(key, verdict, new TooBigVerdict(System.nanoTime() + tooBigRetryNanos))) {
            return;
        }
        SingleFlight.Turn<Key, Built> turn = flights.claim(key);
        if (turn == null) {
            return; // a build is already under way
        }
        lastRecheck = CompletableFuture.runAsync(() -> {
            try {
                Built b = build(key, folder, turn, null);
                if (b != null && b.rows != null) {
                    tooBigLayers.remove(key);
                }
            } catch (RuntimeException e) {
                // the verdict stays; the next re-check is due after the retry interval
            }
        }, Thread.ofVirtual().name("outpost-rows-recheck")::start);
    }

    /**
     * {@link #state} inside the caller's read transaction, taking {@code stamp} as the folder's stamp: for a batch of
     * folders whose stamps the caller reads together, before and after its reads.
     */
    public State stateIn(Connection c, Node folder, String tag, String stamp) throws SQLException {
        TagResolver.ReadLayer read = tags.forRead(c, folder, tag);
        return new State(stamp, read.layer(), read.tag());
    }

    /**
     * The state of a read of {@code layer} given by its id (as a Frontier statement names it), inside the caller's read
     * transaction, taking {@code stamp} as the folder's stamp: null when the layer is not one the folder has (a
     * single-version layer of a multi-version folder or the other way round, or an id that is not a user tag,
     * respectively a standard tag, of the folder), which the caller leaves to the database. A tag found is
     * remembered with the stamp: every tag change through the store (tagging, deleting, a relation, a user tag's
     * first store) bumps the folder's stamp, so at the same stamp it is the same tag.
     */
    public State layerStateIn(Connection c, Node folder, Layer layer, String stamp) throws SQLException {
        if (folder.isMultiVersion() == (layer.kind() == Layer.Kind.SINGLE_VERSION)) {
            return null;
        }
        if (layer.equals(Layer.SV) || layer.equals(Layer.HEAD)) {
            return new State(stamp, layer, null);
        }
        Key key = new Key(folder.path(), layer);
        TagAt known = tagsAtStamp.getIfPresent(key);
        Tag tag = known != null && known.stamp().equals(stamp) ? known.tag() : meta.findTag(c, folder.id(), layer.id());
        TagKind kind = layer.kind() == Layer.Kind.USER_TAG ? TagKind.USER : TagKind.STANDARD;
        if (tag == null || tag.kind() != kind) {
            return null; // not remembered: a tag made later is found at once
        }
        tagsAtStamp.put(key, new TagAt(stamp, tag));
        return new State(stamp, layer, tag);
    }

    /**
     * {@link #rows} inside the caller's read transaction, for a batch: the layer held at {@code state}'s stamp, or
     * built on {@code c} (one full read, no stamp reads: the caller checks the batch's stamps after its reads and only
     * then runs {@code keepAfterCheck}, which keeps the built rows); null when the layer is too big to hold.
     */
    public HeldRows rowsIn(Connection c, Node folder, State state, List<Runnable> keepAfterCheck) throws SQLException {
        Key key = new Key(folder.path(), state.layer());
        if (knownTooBig(key, folder, state) || resting(key)) {
            return null;
        }
        CompletableFuture<Built> held = cache.getIfPresent(key);
        Built done = held != null && held.isDone() && !held.isCompletedExceptionally() ? held.getNow(null) : null;
        if (done != null && done.rows != null && done.stamp.equals(state.stamp())) {
            answers.increment();
            return done.rows;
        }
        builds.increment();
        HeldRows rows;
        try {
            rows = buildAll(c, folder, key.layer(), state.stamp(), meta.channels(c, folder));
        } catch (RowsBuilder.TooBig e) {
            markTooBig(key);
            return null;
        }
        keepAfterCheck.add(() -> cache.put(key, CompletableFuture.completedFuture(new Built(state.stamp(), rows))));
        answers.increment();
        return rows;
    }

    private static HeldRows usable(Built b, State state, Counter counted) {
        if (b == null || b.rows == null || !b.stamp.equals(state.stamp())) {
            return null;
        }
        counted.increment();
        return b.rows;
    }

    private Built build(Key key, Node folder, SingleFlight.Turn<Key, Built> turn, Built previous) {
        builds.increment();
        try {
            Built b = store.read(c -> {
                String before = meta.modificationStamp(c, folder);
                List<Channel> channels = meta.channels(c, folder);
                HeldRows rows;
                try {
                    rows = previous == null || previous.rows == null ? null
                            : IncrementalRefresh.refresh(c, reader, folder, previous.rows, before, channels,
                                    folderLimit, encodedColumns(folder), keepAnswers);
                    if (rows != null) {
                        refreshes.increment();
                    } else {
                        rows = buildAll(c, folder, key.layer(), before, channels);
                    }
                } catch (RowsBuilder.TooBig e) {
                    markTooBig(key);
                    return null; // not kept in the cache: the verdict answers every later request at once
                }
                afterRowsRead.run();
                String after = meta.modificationStamp(c, folder);
                if (!before.equals(after)) {
                    return null; // a write landed during the read: these rows belong to no single stamp
                }
                return new Built(before, rows);
            });
            if (b == null) {
                turn.drop(null);
                return null;
            }
            turn.land(b);
            return b;
        } catch (RuntimeException | Error e) {
            turn.drop(null); // waiters read from the database and see the error themselves
            throw e;
        }
    }

    /** Drops every held layer (tests, operations). */
    public void clear() {
        cache.synchronous().invalidateAll();
        tooBigLayers.clear();
        evictedAt.clear();
        tagsAtStamp.invalidateAll();
    }
}
