package io.outpost.server.pin;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.outpost.server.answer.JsonEncoder;
import io.outpost.server.cache.Answer;
import io.outpost.server.cache.Catalog;
import io.outpost.server.config.OutpostProperties;
import io.outpost.server.query.BadQueryException;
import io.outpost.server.query.Op;
import io.outpost.server.query.Query;
import io.outpost.store.model.ChannelSelection;
import io.outpost.store.model.KeyType;
import io.outpost.store.model.ValidityKey;
import io.outpost.wire.AnswerEncoder;
import io.outpost.wire.AnswerKind;
import io.outpost.wire.Codec;
import io.outpost.wire.Column;
import io.outpost.wire.ColumnType;
import io.outpost.wire.TableEncoder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.concurrent.ConcurrentSkipListMap;
import org.springframework.stereotype.Component;

/**
 * Snapshots: for every folder of a state, the objects valid at the key of the folder's key type (one key t, or a
 * time and a run-lumi key). Each folder's at-time answer is pinned to the folder's generation and keyed by the
 * start of its validity interval, so every key inside that interval maps to one URL; the snapshot itself is keyed
 * by the start of the interval common to the folders of each key type.
 */
@Component
public class SnapshotService {
    /**
     * What a snapshot request resolved to: the canonical keys (each the start of the interval common to the folders
     * of its key type), the common validity interval (0, 0 when the state holds both key types) and the answer.
     */
    public record Snapshot(String pinnedPath, SnapshotKeys canonical, long validSince, long validUntil, Answer answer) {
    }

    private record Part(State.FolderState folder, String url, Answer answer) {
    }

    /** The interval common to the folders of one key type. */
    private static final class Common {
        long since = 0;
        long until = ValidityKey.MAX;
        boolean seen;

        void add(Answer a) {
            since = Math.max(since, a.validSince());
            until = Math.min(until, a.validUntil());
            seen = true;
        }
    }

    /** The snapshot table (docs/wire-format.md); {@code answer} is an object in JSON, a binary document in bin. */
    private static final List<Column> COLUMNS = List.of(new Column("folder", ColumnType.STRING255),
            new Column("tag", ColumnType.STRING255), new Column("generation", ColumnType.STRING255),
            new Column("rows", ColumnType.UINT63), new Column("url", ColumnType.STRING4K),
            new Column("answer", ColumnType.BLOB16M), new Column("keyType", ColumnType.STRING255),
            new Column("validSince", ColumnType.UINT63), new Column("validUntil", ColumnType.UINT63),
            new Column("reads", ColumnType.STRING255));

    private final PinnedReads pinned;
    private final SnapshotValidity validity;
    private final long inlineMax;
    private final Codec codec;
    private final int level;
    /** Per folder, tag, generation and format: the validity intervals of at-time answers seen (start → end). */
    private final Cache<String, NavigableMap<Long, Long>> intervals = Caffeine.newBuilder().maximumSize(50_000).build();

    public SnapshotService(PinnedReads pinned, SnapshotValidity validity, SnapshotProperties props,
                           OutpostProperties outpost) {
        this.pinned = pinned;
        this.validity = validity;
        this.inlineMax = props.inlineMaxBytes().toBytes();
        this.codec = Codec.parse(outpost.cache().codec());
        this.level = outpost.cache().compressionLevel();
    }

    /** The pinned path of a snapshot: {@code /v1/{format}/pin/{state}/snapshot/{tag}/{keys}{subtree}}. */
    public static String pinnedPath(Query.Format format, State state, SnapshotKeys keys) {
        return "/v1/" + format.word() + "/pin/" + state.hash() + "/snapshot/" + state.tag() + "/" + keys.path()
                + state.subtreeSuffix();
    }

    /**
     * The snapshot of {@code state} at {@code keys}, built once per canonical key and kept in the answer cache.
     * One key for a state holding both key types is refused: it cannot mean a time and a run-lumi at once.
     */
    public Snapshot at(Query.Format format, State state, SnapshotKeys keys) {
        Common time = new Common();
        Common runLumi = new Common();
        boolean mixed = state.folders().stream().map(f -> f.folder().keyType()).distinct().count() > 1;
        if (mixed && !keys.pair()) {
            throw new BadQueryException(state.tag() + state.subtreeSuffix() + " holds time and run-lumi folders: ask"
                    + " for a time and a run-lumi key as /snapshot/" + state.tag() + "/{time},{runlumi}"
                    + state.subtreeSuffix());
        }
        List<Part> parts = partsAt(format, state, keys);
        for (Part p : parts) {
            (p.folder.folder().keyType() == KeyType.RUN_LUMI ? runLumi : time).add(p.answer);
        }
        SnapshotKeys canonical;
        long since;
        long until;
        if (mixed) {
            canonical = SnapshotKeys.of(time.since, runLumi.since);
            since = 0;
            until = 0;
        } else {
            Common only = runLumi.seen ? runLumi : time;
            canonical = SnapshotKeys.one(only.since);
            since = only.since;
            until = only.until;
        }
        String key = pinnedPath(format, state, canonical);
        String sinceHeader = mixed ? time.since + "," + runLumi.since : Long.toString(since);
        String untilHeader = mixed ? time.until + "," + runLumi.until : Long.toString(until);
        Answer a = pinned.cache().get(key, state.hash(),
                () -> encode(format, state, since, until, parts, key, sinceHeader, untilHeader), pinned.maxWaitMillis());
        return new Snapshot(key, canonical, since, until, a);
    }

    /**
     * Every folder's at-time answer: those kept in memory as they are, the others computed together
     * ({@link PinnedReads#computeAll}: a few statements per group of folders, not a transaction per folder), each
     * kept as soon as it is known to be of its generation.
     */
    private List<Part> partsAt(Query.Format format, State state, SnapshotKeys keys) {
        List<State.FolderState> folders = state.folders();
        List<Part> parts = new ArrayList<>(java.util.Collections.nCopies(folders.size(), null));
        List<Integer> missing = new ArrayList<>();
        List<PinnedReads.AtRead> reads = new ArrayList<>();
        for (int i = 0; i < folders.size(); i++) {
            State.FolderState f = folders.get(i);
            long t = keys.forType(f.folder().keyType());
            Part kept = kept(format, f, t);
            if (kept != null) {
                parts.set(i, kept);
            } else {
                missing.add(i);
                reads.add(new PinnedReads.AtRead(at(format, f, t),
                        new Catalog.Entry(f.folder(), f.stamp(), java.time.Instant.EPOCH), f.frozen() ? f.token() : null));
            }
        }
        pinned.computeAll(reads, (computed, j) -> {
            State.FolderState f = folders.get(missing.get(j));
            parts.set(missing.get(j), keep(format, f, keys.forType(f.folder().keyType()), computed));
        });
        return parts;
    }

    private String intervalsKey(Query.Format format, State.FolderState f) {
        return format.word() + " " + f.folder().path() + " " + f.tag() + " " + f.token();
    }

    /** The folder's answer at {@code t} if memory holds it under the start of a validity interval seen before. */
    private Part kept(Query.Format format, State.FolderState f, long t) {
        NavigableMap<Long, Long> known = intervals.get(intervalsKey(format, f), k -> new ConcurrentSkipListMap<>());
        Map.Entry<Long, Long> iv = known.floorEntry(t);
        long key = iv != null && t < iv.getValue() ? iv.getKey() : t;
        String url = PinnedReads.pinnedPath(at(format, f, key), f.token());
        Answer cached = pinned.cache().peek(url);
        return cached != null && cached.generation().equals(f.token().toString()) ? new Part(f, url, cached) : null;
    }

    /** Keeps an answer computed at {@code t} under the start of its validity interval (one URL for every key in it). */
    private Part keep(Query.Format format, State.FolderState f, long t, Answer computed) {
        NavigableMap<Long, Long> known = intervals.get(intervalsKey(format, f), k -> new ConcurrentSkipListMap<>());
        long since = computed.validSince();
        long until = computed.validUntil();
        if (since <= t && t < until) {
            known.put(since, until);
        } else {
            since = t;
        }
        String canonicalUrl = PinnedReads.pinnedPath(at(format, f, since), f.token());
        Answer kept = pinned.cache().get(canonicalUrl, f.token().toString(), () -> computed, pinned.maxWaitMillis());
        return new Part(f, canonicalUrl, kept);
    }

    private static Query at(Query.Format format, State.FolderState f, long t) {
        return new Query(format, Op.AT, f.tag(), t, t, ChannelSelection.all(), f.folder().path());
    }

    private Answer encode(Query.Format format, State state, long since, long until, List<Part> parts, String key,
                          String sinceHeader, String untilHeader) {
        boolean bin = format == Query.Format.BIN;
        TableEncoder e = bin ? new AnswerEncoder(codec, level) : new JsonEncoder(Set.of("answer"));
        e.begin(AnswerKind.SNAPSHOT, state.subtree(), state.tag(), since, until, COLUMNS);
        for (Part p : parts) {
            boolean inline = p.answer.body().length <= inlineMax;
            Object body = !inline ? null : bin ? p.answer.body() : new JsonEncoder.Nested(p.answer.body());
            e.row(new Object[] {p.folder.folder().path(), p.folder.tag(), p.folder.token().toString(), p.answer.rows(),
                inline ? null : p.url, body, p.folder.folder().keyType().label(), p.answer.validSince(),
                p.answer.validUntil(), p.folder.reads()});
        }
        String warning = validity.warning(state, parts.stream().map(p -> new SnapshotValidity.FolderValidity(
                p.folder.folder(), p.answer.validSince(), p.answer.validUntil())).toList());
        byte[] body = e instanceof JsonEncoder json && warning != null ? json.finish(Map.of("warning", warning))
                : e.finish();
        Answer a = new Answer(body, e.contentType(), e.rows(), since, until, false, true, state.hash(), null);
        String cc = pinned.immutableCacheControl();
        return a.withHeaders(new Answer.Headers(state.subtree(), PinnedReads.etag(key), 0, "", cc, cc,
                Long.toString(e.rows()), sinceHeader, untilHeader));
    }
}
