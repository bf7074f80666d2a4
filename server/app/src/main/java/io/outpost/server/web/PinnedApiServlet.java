package io.outpost.server.web;

import io.outpost.server.answer.JsonEncoder;
import io.outpost.server.cache.Answer;
import io.outpost.server.cache.CachePolicy;
import io.outpost.server.pin.GenerationGoneException;
import io.outpost.server.pin.PinnedReads;
import io.outpost.server.pin.PinnedRequest;
import io.outpost.server.pin.SnapshotProperties;
import io.outpost.server.pin.SnapshotService;
import io.outpost.server.pin.State;
import io.outpost.server.pin.StateService;
import io.outpost.server.query.BadQueryException;
import io.outpost.server.query.Query;
import io.outpost.server.signing.AnswerSigner;
import io.outpost.store.StoreException;
import io.outpost.store.globaltag.GlobalTag;
import io.outpost.wire.AnswerEncoder;
import io.outpost.wire.AnswerKind;
import io.outpost.wire.Codec;
import io.outpost.wire.Column;
import io.outpost.wire.ColumnType;
import io.outpost.wire.TableEncoder;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.List;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Global tags, states, snapshots and pinned reads (docs/api.md): the state is the only short-lived answer; every
 * pinned answer is served {@code immutable}; a pinned URL this replica cannot answer for gets a small problem+json
 * naming the current generation, cached for a second or two.
 */
public class PinnedApiServlet extends HttpServlet {
    private static final Logger log = LoggerFactory.getLogger(PinnedApiServlet.class);
    private static final List<Column> GLOBALTAG_COLUMNS = List.of(new Column("name", ColumnType.STRING255),
            new Column("lock", ColumnType.STRING255), new Column("description", ColumnType.STRING4K),
            new Column("insertionTime", ColumnType.STRING255));
    private static final List<Column> STATE_COLUMNS = List.of(new Column("folder", ColumnType.STRING255),
            new Column("tag", ColumnType.STRING255), new Column("generation", ColumnType.STRING255));
    private static final List<Column> RESOLVE_COLUMNS = List.of(new Column("folder", ColumnType.STRING255),
            new Column("tag", ColumnType.STRING255), new Column("lock", ColumnType.STRING255),
            new Column("versioning", ColumnType.STRING255), new Column("keyType", ColumnType.STRING255),
            new Column("generation", ColumnType.STRING255));

    /** A current-state snapshot is rebuilt at most this often when writes overtake it. */
    private static final int CURRENT_SNAPSHOT_ATTEMPTS = 4;

    private final StateService states;
    private final PinnedReads pinned;
    private final SnapshotService snapshots;
    private final CachePolicy policy;
    private final SnapshotProperties props;
    private final Codec codec;
    private final int level;
    private final String shortLived;
    private final AnswerSigner signer;
    private final io.micrometer.core.instrument.Counter pinnedReads;
    private final io.micrometer.core.instrument.Counter snapshotRequests;

    public PinnedApiServlet(StateService states, PinnedReads pinned, SnapshotService snapshots, CachePolicy policy,
                            SnapshotProperties props, io.outpost.server.config.OutpostProperties outpost,
                            AnswerSigner signer, io.micrometer.core.instrument.MeterRegistry registry) {
        this.signer = signer;
        this.states = states;
        this.pinned = pinned;
        this.snapshots = snapshots;
        this.policy = policy;
        this.props = props;
        this.codec = Codec.parse(outpost.cache().codec());
        this.level = outpost.cache().compressionLevel();
        this.shortLived = "public, max-age=" + props.stateMaxAge().toSeconds();
        this.pinnedReads = io.micrometer.core.instrument.Counter.builder("outpost.pinned.reads")
                .description("pinned folder reads that reached the service (the rest were served by caches)")
                .register(registry);
        this.snapshotRequests = io.micrometer.core.instrument.Counter.builder("outpost.snapshot.requests")
                .description("snapshot requests that reached the service, current-state and pinned").register(registry);
    }

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        String raw = req.getRequestURI();
        if (raw.contains("/snapshot/")) {
            snapshotRequests.increment();
        } else if (raw.contains("/pin/")) {
            pinnedReads.increment();
        }
        try {
            if (req.getQueryString() != null) {
                throw new BadQueryException("native queries carry their whole meaning in the path; drop the '?…'");
            }
            if (raw.contains("/pin/")) {
                // A pinned answer in memory is right forever: its URL names the generation it belongs to.
                Answer a = pinned.cache().peek(raw);
                if (a != null && a.headers() != null) {
                    serve(a, a.headers().cacheControl(), req, resp);
                    return;
                }
            }
            PinnedRequest r = PinnedRequest.parse(raw);
            String canonical = r.canonicalPath();
            if (!canonical.equals(raw)) {
                redirect(req, resp, canonical, r.pin() != null ? pinned.immutableCacheControl() : "public, max-age=86400");
                return;
            }
            switch (r.type()) {
                case GLOBALTAGS -> serve(globalTags(r), shortLived, req, resp);
                case RESOLVE, STATE -> {
                    State s = states.current(r.tag(), r.subtree());
                    resp.setHeader("X-Outpost-State", s.hash());
                    serve(stateAnswer(r, s, canonical), shortLived, req, resp);
                }
                case SNAPSHOT -> currentSnapshot(r, req, resp);
                case PINNED_SNAPSHOT -> pinnedSnapshot(r, req, resp);
                case PINNED_READ -> {
                    Answer a = pinned.read(r.read(), r.token());
                    serve(a, a.headers().cacheControl(), req, resp);
                }
            }
        } catch (BadQueryException e) {
            problem(resp, e.status(), e.getMessage(), raw, policy.errorCacheControl(e.status()), null, null);
        } catch (GenerationGoneException e) {
            boolean state = e.subject().startsWith("state ");
            int status = e.newer() ? 404 : 410;
            String cc = e.newer() ? "public, max-age=1" : "public, max-age=" + props.goneMaxAge().toSeconds();
            resp.setHeader(state ? "X-Outpost-State" : "X-Outpost-Generation", e.current());
            problem(resp, status, e.getMessage(), raw, cc, state ? "currentState" : "currentGeneration", e.current());
        } catch (StoreException e) {
            int status = StoreStatus.of(e);
            String detail = InternalErrors.clientText(e, raw); // logs what it leaves out
            if (status == 503 && detail.equals(e.getMessage())) {
                log.warn("503 for {}: {}", raw, e.getMessage());
            }
            problem(resp, status, detail, raw, policy.errorCacheControl(status), null, null);
        } catch (io.outpost.server.cache.AnswerCache.WaitTimeout e) {
            problem(resp, 503, e.getMessage(), raw, policy.errorCacheControl(503), null, null);
        }
    }

    /** The snapshot at the current state: as short-lived as the state, and naming its pinned URL. */
    private void currentSnapshot(PinnedRequest r, HttpServletRequest req, HttpServletResponse resp) throws IOException {
        SnapshotService.Snapshot snap = null;
        State s = null;
        for (int attempt = 1; snap == null; attempt++) {
            try {
                s = states.current(r.tag(), r.subtree());
                snap = snapshots.at(r.format(), s, r.keys());
            } catch (GenerationGoneException moved) {
                // The catalog was behind the database and has just been refreshed: build from the new state.
                if (attempt == CURRENT_SNAPSHOT_ATTEMPTS) {
                    throw new StoreException(StoreException.Kind.DATABASE, "the folders of " + r.tag()
                            + " changed faster than a snapshot could be read (" + attempt + " attempts); ask again");
                }
            }
        }
        resp.setHeader("X-Outpost-State", s.hash());
        resp.setHeader("X-Outpost-Snapshot", snap.pinnedPath());
        serve(snap.answer(), shortLived, req, resp);
    }

    private void pinnedSnapshot(PinnedRequest r, HttpServletRequest req, HttpServletResponse resp) throws IOException {
        State s = states.current(r.tag(), r.subtree());
        if (!s.hash().equals(r.pin())) {
            pinned.forceRefresh();
            s = states.current(r.tag(), r.subtree());
            if (!s.hash().equals(r.pin())) {
                throw new GenerationGoneException("state of " + r.tag() + s.subtreeSuffix(), r.pin(), s.hash(), false);
            }
        }
        SnapshotService.Snapshot snap = snapshots.at(r.format(), s, r.keys());
        resp.setHeader("X-Outpost-State", s.hash());
        if (!snap.canonical().equals(r.keys())) {
            redirect(req, resp, snap.pinnedPath(), pinned.immutableCacheControl());
            return;
        }
        serve(snap.answer(), snap.answer().headers().cacheControl(), req, resp);
    }

    private Answer globalTags(PinnedRequest r) {
        TableEncoder e = encoder(r.format());
        e.begin(AnswerKind.GLOBALTAGS, "/", "", 0, 0, GLOBALTAG_COLUMNS);
        for (GlobalTag gt : states.globalTags().list()) {
            e.row(new Object[] {gt.name(), gt.lock().name().toLowerCase(Locale.ROOT), gt.description(),
                gt.insertionTime()});
        }
        return finish(e, "", "", 0, 0);
    }

    private Answer stateAnswer(PinnedRequest r, State s, String canonical) {
        return pinned.cache().get(canonical, s.hash(), () -> {
            boolean full = r.type() == PinnedRequest.Type.RESOLVE;
            TableEncoder e = encoder(r.format());
            e.begin(full ? AnswerKind.RESOLVE : AnswerKind.STATE, s.subtree(), s.tag(), 0, 0,
                    full ? RESOLVE_COLUMNS : STATE_COLUMNS);
            for (State.FolderState f : s.folders()) {
                e.row(full ? new Object[] {f.folder().path(), f.tag(), f.lock(), f.folder().versioning().shortName(),
                    f.folder().keyType().label(), f.token().toString()}
                        : new Object[] {f.folder().path(), f.tag(), f.token().toString()});
            }
            return finish(e, s.subtree(), "\"" + s.hash() + "\"", 0, 0);
        }, pinned.maxWaitMillis());
    }

    private TableEncoder encoder(Query.Format f) {
        return f == Query.Format.BIN ? new AnswerEncoder(codec, level) : new JsonEncoder();
    }

    private Answer finish(TableEncoder e, String folder, String etag, long since, long until) {
        byte[] body = e.finish();
        Answer a = new Answer(body, e.contentType(), e.rows(), since, until, false, false, etag, null);
        return a.withHeaders(new Answer.Headers(folder, etag, 0, "", shortLived, shortLived, Long.toString(e.rows()),
                null, null));
    }

    private void serve(Answer a, String cacheControl, HttpServletRequest req, HttpServletResponse resp)
            throws IOException {
        Answer.Headers h = a.headers();
        resp.setHeader("Cache-Control", cacheControl);
        String signature = MemoryHits.signature(signer, a, req.getRequestURI(), cacheControl);
        if (!h.etag().isEmpty()) {
            resp.setHeader("ETag", h.etag());
            String inm = req.getHeader("If-None-Match");
            if (inm != null && (inm.contains(h.etag()) || inm.trim().equals("*"))) {
                // a cache updates its stored headers from a 304: the stored answer's signature gets a new expiry
                resp.setStatus(HttpServletResponse.SC_NOT_MODIFIED);
                if (signature != null) {
                    resp.setHeader(AnswerSigner.HEADER, signature);
                }
                return;
            }
        }
        if (!h.lastModified().isEmpty()) {
            resp.setHeader("Last-Modified", h.lastModified());
        }
        MemoryHits.writeBody(resp, a, signature);
    }

    /** A 301 to the canonical spelling, signed (a client under security=sig follows only a signed redirect). */
    private void redirect(HttpServletRequest req, HttpServletResponse resp, String location, String cacheControl) {
        resp.setStatus(HttpServletResponse.SC_MOVED_PERMANENTLY);
        resp.setHeader("Location", location);
        resp.setHeader("Cache-Control", cacheControl);
        if (signer.enabled()) {
            resp.setHeader(AnswerSigner.HEADER, signer.redirectHeader(req.getRequestURI(), location,
                    signer.expiresFor(cacheControl)));
        }
        resp.setContentLength(0);
    }

    private static void problem(HttpServletResponse resp, int status, String detail, String instance,
                                String cacheControl, String member, String value) throws IOException {
        String title = switch (status) {
            case 400 -> "Bad Request";
            case 404 -> "Not Found";
            case 409 -> "Conflict";
            case 410 -> "Gone";
            case 414 -> "URI Too Long";
            case 503 -> "Service Unavailable";
            default -> "Error";
        };
        Problems.write(resp, status, title, detail, instance, cacheControl, member, value);
    }
}
