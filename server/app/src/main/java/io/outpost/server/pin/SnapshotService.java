package io.outpost.server.pin;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.outpost.server.answer.JsonEncoder;
import io.outpost.server.cache.Answer;
import io.outpost.server.cache.Catalog;
import io.outpost.server.config.OutpostProperties;
import io.outpost.server.query.Op;
import io.outpost.server.query.Query;
import io.outpost.store.model.ChannelSelection;
import io.outpost.store.model.ValidityKey;
import io.outpost.wire.AnswerEncoder;
import io.outpost.wire.AnswerKind;
import io.outpost.wire.Codec;
import io.outpost.wire.Column;
import io.outpost.wire.ColumnType;
import io.outpost.wire.TableEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import org.springframework.stereotype.Component;

/**
 * Snapshots: for every folder of a state, the objects valid at key t. Each folder's at-time answer is pinned to
 * the folder's generation and keyed by the start of its validity interval, so every t inside that interval maps
 * to one URL; the snapshot itself is keyed by the start of the interval common to all its folders.
 */
@Component
public class SnapshotService {
    /** What a snapshot request resolved to: the canonical key, the common validity interval and the answer. */
    public record Snapshot(String pinnedPath, long validSince, long validUntil, Answer answer) {
    }

    private record Part(State.FolderState folder, String url, Answer answer) {
    }

    private final PinnedReads pinned;
    private final long inlineMax;
    private final Codec codec;
    private final int level;
    /** Per folder, tag, generation and format: the validity intervals of at-time answers seen (start → end). */
    private final Cache<String, NavigableMap<Long, Long>> intervals = Caffeine.newBuilder().maximumSize(50_000).build();

    public SnapshotService(PinnedReads pinned, SnapshotProperties props, OutpostProperties outpost) {
        this.pinned = pinned;
        this.inlineMax = props.inlineMaxBytes().toBytes();
        this.codec = Codec.parse(outpost.cache().codec());
        this.level = outpost.cache().compressionLevel();
    }

    /** The pinned path of a snapshot: {@code /v1/{format}/pin/{state}/snapshot/{tag}/{t}{subtree}}. */
    public static String pinnedPath(Query.Format format, State state, long t) {
        return "/v1/" + format.word() + "/pin/" + state.hash() + "/snapshot/" + state.tag() + "/" + t
                + state.subtreeSuffix();
    }

    /** The snapshot of {@code state} at {@code t}, built once per canonical key and kept in the answer cache. */
    public Snapshot at(Query.Format format, State state, long t) {
        List<Part> parts = new ArrayList<>(state.folders().size());
        long since = 0;
        long until = ValidityKey.MAX;
        for (State.FolderState f : state.folders()) {
            Part p = folderAt(format, f, t);
            parts.add(p);
            since = Math.max(since, p.answer.validSince());
            until = Math.min(until, p.answer.validUntil());
        }
        if (state.folders().isEmpty()) {
            until = ValidityKey.MAX;
        }
        String key = pinnedPath(format, state, since);
        long s = since;
        long u = until;
        Answer a = pinned.cache().get(key, state.hash(), () -> encode(format, state, s, u, parts, key),
                pinned.maxWaitMillis());
        return new Snapshot(key, since, until, a);
    }

    private Part folderAt(Query.Format format, State.FolderState f, long t) {
        String idxKey = format.word() + " " + f.folder().path() + " " + f.tag() + " " + f.token();
        NavigableMap<Long, Long> known = intervals.get(idxKey, k -> new ConcurrentSkipListMap<>());
        Map.Entry<Long, Long> iv = known.floorEntry(t);
        long key = iv != null && t < iv.getValue() ? iv.getKey() : t;
        Query canonical = at(format, f, key);
        String url = PinnedReads.pinnedPath(canonical, f.token());
        Answer cached = pinned.cache().peek(url);
        if (cached != null && cached.generation().equals(f.token().toString())) {
            return new Part(f, url, cached);
        }
        Catalog.Entry entry = new Catalog.Entry(f.folder(), f.stamp(), java.time.Instant.EPOCH);
        Answer computed = pinned.compute(at(format, f, t), entry);
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

    private Answer encode(Query.Format format, State state, long since, long until, List<Part> parts, String key) {
        boolean bin = format == Query.Format.BIN;
        TableEncoder e = bin ? new AnswerEncoder(codec, level) : new JsonEncoder();
        e.begin(AnswerKind.SNAPSHOT, state.subtree(), state.tag(), since, until, List.of(
                new Column("folder", ColumnType.STRING255), new Column("tag", ColumnType.STRING255),
                new Column("generation", ColumnType.STRING255), new Column("rows", ColumnType.UINT63),
                new Column("url", ColumnType.STRING4K),
                new Column("answer", bin ? ColumnType.BLOB16M : ColumnType.STRING16M)));
        for (Part p : parts) {
            boolean inline = p.answer.body().length <= inlineMax;
            Object body = !inline ? null : bin ? p.answer.body() : new String(p.answer.body(), StandardCharsets.UTF_8);
            e.row(new Object[] {p.folder.folder().path(), p.folder.tag(), p.folder.token().toString(), p.answer.rows(),
                inline ? null : p.url, body});
        }
        byte[] body = e.finish();
        Answer a = new Answer(body, e.contentType(), e.rows(), since, until, false, true, state.hash(), null);
        String cc = pinned.immutableCacheControl();
        return a.withHeaders(new Answer.Headers(state.subtree(), PinnedReads.etag(key), 0, "", cc, cc,
                Long.toString(e.rows()), Long.toString(since), Long.toString(until)));
    }
}
