package io.outpost.server.pin;

import io.outpost.server.cache.Answer;
import io.outpost.server.cache.AnswerCache;
import io.outpost.server.cache.Catalog;
import io.outpost.server.config.OutpostProperties;
import io.outpost.server.query.Query;
import io.outpost.server.query.QueryService;
import io.outpost.store.IovStore;
import io.outpost.store.StoreException;
import io.outpost.store.model.Node;
import io.outpost.store.read.Metadata;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32;
import org.springframework.stereotype.Component;

/**
 * Answers of folder reads pinned to a generation. An answer is computed only when the folder's stored stamp equals
 * the pinned generation both before and after the read, so a pinned answer never holds rows of another
 * generation; it is then kept under its pinned URL, whose answer can never change.
 */
@Component
public class PinnedReads {
    private static final long FORCED_REFRESH_GAP_NANOS = 200_000_000L;

    private final IovStore store;
    private final Catalog catalog;
    private final AnswerCache cache;
    private final QueryService service;
    private final FrozenReads frozen;
    private final String immutable;
    private final long maxWaitMillis;
    private volatile long lastForcedRefresh;

    public PinnedReads(IovStore store, Catalog catalog, AnswerCache cache, QueryService service, FrozenReads frozen,
                       SnapshotProperties snapshot, OutpostProperties props) {
        this.store = store;
        this.catalog = catalog;
        this.cache = cache;
        this.service = service;
        this.frozen = frozen;
        this.immutable = "public, max-age=" + snapshot.pinnedMaxAge().toSeconds() + ", immutable";
        this.maxWaitMillis = props.database().connectionTimeout().plus(props.database().statementTimeout()).toMillis();
    }

    public String immutableCacheControl() {
        return immutable;
    }

    public AnswerCache cache() {
        return cache;
    }

    public long maxWaitMillis() {
        return maxWaitMillis;
    }

    /** The pinned URL of a folder read: {@code /v1/{format}/pin/{generation}/{op}/…}. */
    public static String pinnedPath(Query q, GenerationToken token) {
        String canonical = q.canonicalPath();
        String prefix = "/v1/" + q.format().word();
        return prefix + "/pin/" + token + canonical.substring(prefix.length());
    }

    /** The catalog entry of a folder, refreshed once if the name is new. */
    public Catalog.Entry entry(String path) {
        Catalog.Entry e = catalog.find(path);
        if (e == null) {
            catalog.refreshIfOlderThanASecond();
            e = catalog.find(path);
        }
        if (e == null) {
            throw new StoreException(StoreException.Kind.FOLDER_NOT_FOUND, "no folder or folderset '" + path + "'");
        }
        return e;
    }

    /**
     * The answer of {@code q} pinned at {@code asked}: computed (or taken from memory) when it is the folder's
     * current generation; a generation newer than the catalog's first refreshes the catalog.
     */
    public Answer read(Query q, GenerationToken asked) {
        Catalog.Entry e = entry(q.path());
        GenerationToken current = GenerationToken.ofStamp(e.generation());
        if (asked.compareTo(current) != 0 && frozen.holds(e.node(), q.tag(), asked)) {
            Catalog.Entry entry = e;
            return cache.get(pinnedPath(q, asked), asked.toString(), () -> computeFrozen(q, entry, asked),
                    maxWaitMillis);
        }
        if (asked.compareTo(current) > 0) {
            forceRefresh();
            e = entry(q.path());
            current = GenerationToken.ofStamp(e.generation());
        }
        if (asked.compareTo(current) != 0) {
            throw new GenerationGoneException(q.path(), asked.toString(), current.toString(), asked.compareTo(current) > 0);
        }
        Catalog.Entry entry = e;
        return cache.get(pinnedPath(q, asked), asked.toString(), () -> compute(q, entry), maxWaitMillis);
    }

    /**
     * Computes {@code q} on the folder at the catalog entry's generation, checking the stored stamp around the read;
     * the answer's generation is the token and its headers are those of a pinned answer.
     */
    public Answer compute(Query q, Catalog.Entry e) {
        Node n = e.node();
        String expected = e.generation();
        GenerationToken token = GenerationToken.ofStamp(expected);
        checkStamp(n, expected, token);
        Answer a = service.load(q, n, expected);
        checkStamp(n, expected, token);
        return pinned(q, token, a);
    }

    /**
     * A read through a folder tag held by a frozen global tag, pinned to the lock ({@link FrozenReads}): the tag is
     * checked to be held, locked, before and after the read, as a folder's stamp is for other pinned reads.
     */
    private Answer computeFrozen(Query q, Catalog.Entry e, GenerationToken lock) {
        Node n = e.node();
        Answer a = service.load(q, n, e.generation());
        if (!frozen.holds(n, q.tag(), lock)) {
            throw gone(n, store.modificationStamp(n), lock);
        }
        return pinned(q, lock, a);
    }

    /**
     * One at-time read of a batch: the query and the catalog entry whose generation its answer is pinned to, or,
     * for a folder read through a frozen global tag, the lock's generation {@code frozen} (else null).
     */
    public record AtRead(Query query, Catalog.Entry entry, GenerationToken frozen) {
        public AtRead(Query query, Catalog.Entry entry) {
            this(query, entry, null);
        }
    }

    /** A folder of a batch whose stored stamp is not the generation its read is pinned to. */
    private record Moved(Node folder, String stored, GenerationToken expected) {
    }

    /**
     * The answers of many at-time reads, each as {@link #compute} gives it, in one read transaction per
     * {@link Metadata#STAMPS_PER_QUERY} folders: the group's stored stamps are read in one statement before and one
     * after its reads, and every read of the group runs on that transaction's connection. A global tag's first
     * snapshot reads thousands of folders: one transaction and two stamp reads per folder were most of its time.
     * Each answer whose folder kept its stamp goes to {@code done} (with its index in {@code reads}); if a folder's
     * stamp moved, the others are still given, and then the moved folder's {@link GenerationGoneException} is thrown
     * (a retry finds them kept, so it makes progress however often some folder is written).
     */
    public void computeAll(List<AtRead> reads, java.util.function.ObjIntConsumer<Answer> done) {
        Moved moved = null;
        for (int from = 0; from < reads.size(); from += Metadata.STAMPS_PER_QUERY) {
            List<AtRead> group = reads.subList(from, Math.min(reads.size(), from + Metadata.STAMPS_PER_QUERY));
            List<Node> folders = group.stream().map(r -> r.entry().node()).toList();
            Answer[] answers = new Answer[group.size()];
            String[] readAt = new String[group.size()];
            List<List<Runnable>> keepAfterCheck = new ArrayList<>();
            Map<String, String> after = store.read(c -> {
                Map<String, String> before = store.modificationStamps(c, folders);
                for (int i = 0; i < group.size(); i++) {
                    AtRead r = group.get(i);
                    Node folder = r.entry().node();
                    List<Runnable> keep = new ArrayList<>();
                    keepAfterCheck.add(keep);
                    readAt[i] = before.get(folder.path());
                    // a frozen read holds whatever the folder's stamp: its tag is checked in this transaction
                    boolean readable = r.frozen() != null ? frozen.holds(c, folder, r.query().tag(), r.frozen())
                            : r.entry().generation().equals(readAt[i]);
                    if (readable) {
                        answers[i] = service.loadAt(c, r.query(), folder, readAt[i], keep);
                    }
                }
                return store.modificationStamps(c, folders);
            });
            for (int i = 0; i < group.size(); i++) {
                AtRead r = group.get(i);
                String now = after.get(r.entry().node().path());
                if (answers[i] != null && r.frozen() != null) {
                    if (java.util.Objects.equals(readAt[i], now)) {
                        keepAfterCheck.get(i).forEach(Runnable::run);
                    }
                    done.accept(pinned(r.query(), r.frozen(), answers[i]), from + i);
                } else if (answers[i] != null && r.entry().generation().equals(now)) {
                    keepAfterCheck.get(i).forEach(Runnable::run); // held rows built on the way: of their stamp
                    done.accept(pinned(r.query(), GenerationToken.ofStamp(r.entry().generation()), answers[i]), from + i);
                } else if (moved == null) {
                    moved = new Moved(r.entry().node(), now, GenerationToken.ofStamp(r.entry().generation()));
                }
            }
        }
        if (moved != null) {
            throw gone(moved.folder(), moved.stored(), moved.expected());
        }
    }

    /** A computed answer as a pinned one: its generation is the token, its headers those of an immutable answer. */
    private Answer pinned(Query q, GenerationToken token, Answer a) {
        String path = pinnedPath(q, token);
        boolean at = q.op() == io.outpost.server.query.Op.AT;
        long modified = token.micros() / 1000;
        String lastModified = DateTimeFormatter.RFC_1123_DATE_TIME.format(
                ZonedDateTime.ofInstant(java.time.Instant.ofEpochMilli(modified), ZoneOffset.UTC));
        Answer pinned = new Answer(a.body(), a.contentType(), a.rows(), a.validSince(), a.validUntil(),
                a.touchesOpenEnded(), true, token.toString(), null);
        return pinned.withHeaders(new Answer.Headers(q.path(), etag(path), modified, lastModified, immutable, immutable,
                Long.toString(a.rows()), at ? Long.toString(a.validSince()) : null,
                at ? Long.toString(a.validUntil()) : null));
    }

    private void checkStamp(Node n, String expected, GenerationToken token) {
        String stored = store.modificationStamp(n);
        if (!stored.equals(expected)) {
            throw gone(n, stored, token);
        }
    }

    /** The database moved past the catalog's view: refreshes the catalog now (at most once per write). */
    private GenerationGoneException gone(Node n, String stored, GenerationToken token) {
        catalog.refresh();
        GenerationToken now = GenerationToken.ofStamp(stored);
        return new GenerationGoneException(n.path(), token.toString(), now.toString(), token.compareTo(now) > 0);
    }

    /** Re-reads the catalog now, at most every 200 ms (a flood of bad pinned URLs cannot hammer the database). */
    public void forceRefresh() {
        long now = System.nanoTime();
        if (now - lastForcedRefresh > FORCED_REFRESH_GAP_NANOS) {
            lastForcedRefresh = now;
            catalog.refresh();
        }
    }

    static String etag(String path) {
        CRC32 c = new CRC32();
        c.update(path.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        return "\"p" + Long.toHexString(c.getValue()) + "-" + Integer.toHexString(path.hashCode()) + "\"";
    }
}
