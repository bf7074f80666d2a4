package io.outpost.client;

import io.outpost.wire.AnswerKind;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;

/**
 * A job's consistent view of the conditions (docs/api.md, "Global tags, states, pinned URLs and snapshots").
 * The session learns a state once — from the first snapshot it asks for, which names its state — and keeps it for
 * the state's lifetime; until then every request goes to URLs pinned to that state, which caches keep for good.
 * When the service answers that a pinned generation is gone (410) or not known yet (404), the session reads the
 * current state once and asks again. Thread-safe; folders given by URL are fetched in parallel.
 */
public final class SnapshotSession {
    private static final int PARALLEL_FETCHES = 8;
    private static final List<String> HEADERS = List.of("X-Outpost-State", "X-Outpost-Snapshot");

    /** An answer with the response headers the session needs. */
    record Fetched(Answer answer, Map<String, String> headers, long freshSeconds) {
    }

    private record Pinned(String hash, long expiresAtNanos, Map<String, String[]> folders) {
        boolean fresh() {
            return System.nanoTime() - expiresAtNanos < 0;
        }
    }

    private final OutpostClient client;
    private final String globalTag;
    private final String subtree;
    private volatile Pinned state;
    private volatile Snapshot last;

    SnapshotSession(OutpostClient client, String globalTag, String subtree) {
        this.client = client;
        this.globalTag = Paths.checkTag(globalTag);
        this.subtree = subtree == null || subtree.isEmpty() || subtree.equals("/") ? "" : Paths.checkPath(subtree);
    }

    /** The state hash the session is pinned to, or null before the first request. */
    public String state() {
        Pinned s = state;
        return s == null ? null : s.hash;
    }

    /** Reads the current state now (one short-lived request) and pins the session to it. */
    public String refreshState() throws OutpostException {
        Fetched f = client.fetchWithHeaders(Paths.PREFIX + "/state/" + globalTag + subtree, HEADERS);
        if (f.answer().kind() != AnswerKind.STATE) {
            throw new OutpostException(OutpostException.Kind.PROTOCOL, "state of " + globalTag + " answered a "
                    + f.answer().kind().jsonName() + " answer");
        }
        Map<String, String[]> folders = new LinkedHashMap<>();
        for (Row r : f.answer().rows()) {
            folders.put((String) r.get(0), new String[] {(String) r.get(1), (String) r.get(2)});
        }
        state = new Pinned(header(f, "X-Outpost-State"), expiry(f), folders);
        return state.hash;
    }

    /**
     * Every folder at key {@code t}, pinned to the session's state. A snapshot of the same state that covers t is
     * reused without a request.
     */
    public Snapshot at(long t) throws OutpostException {
        Paths.checkKey(t);
        return at(Long.toString(t), previous -> previous.covers(t));
    }

    /**
     * Every folder of a global tag holding time and run-lumi folders, each read at the key of its own key type
     * (docs/api.md, "Mixed key types"); a global tag of one key type uses the key of its type. A snapshot of the
     * same state whose validity covers both keys is reused without a request.
     */
    public Snapshot at(long time, long runLumi) throws OutpostException {
        Paths.checkKey(time);
        Paths.checkKey(runLumi);
        return at(time + "," + runLumi, previous -> previous.covers(time, runLumi));
    }

    private Snapshot at(String keys, java.util.function.Predicate<Snapshot> covers) throws OutpostException {
        for (int attempt = 0; ; attempt++) {
            try {
                return fetchSnapshot(keys, covers);
            } catch (OutpostException e) {
                if (attempt > 0 || !generationGone(e)) {
                    throw e;
                }
                state = null; // the state moved on: read the current one once, then ask again
            }
        }
    }

    /**
     * The browse of one folder of the session's state, through its URL pinned to the folder's generation (the
     * folder's own tag, as the state chose it).
     */
    public List<Iov> browse(String folder, long t1, long t2, ChannelSelection channels, Order order)
            throws OutpostException {
        for (int attempt = 0; ; attempt++) {
            Pinned s = state;
            if (s == null || !s.fresh()) {
                refreshState();
                s = state;
            }
            String[] choice = s.folders.get(folder);
            if (choice == null) {
                throw new IllegalArgumentException("'" + folder + "' is not in the state of " + globalTag + subtree);
            }
            String path = pin(Paths.browse(choice[0], t1, t2, channels, order, folder), choice[1]);
            try {
                return client.fetch(path).iovs();
            } catch (OutpostException e) {
                if (attempt > 0 || !generationGone(e)) {
                    throw e;
                }
                state = null;
            }
        }
    }

    private Snapshot fetchSnapshot(String t, java.util.function.Predicate<Snapshot> covers) throws OutpostException {
        Pinned s = state;
        Snapshot previous = last;
        if (s != null && s.fresh() && previous != null && previous.state().equals(s.hash) && covers.test(previous)) {
            return new Snapshot(previous.globalTag(), previous.state(), previous.validSince(), previous.validUntil(),
                    previous.time(), previous.runLumi(), previous.folders(), 0, 0);
        }
        Fetched f;
        if (s == null || !s.fresh()) {
            // The current-state snapshot names its state: one request instead of state + snapshot.
            f = client.fetchWithHeaders(Paths.PREFIX + "/snapshot/" + globalTag + "/" + t + subtree, HEADERS);
        } else {
            f = client.fetchWithHeaders(Paths.PREFIX + "/pin/" + s.hash + "/snapshot/" + globalTag + "/" + t + subtree,
                    HEADERS);
        }
        Answer a = f.answer();
        if (a.kind() != AnswerKind.SNAPSHOT || a.schema().size() < 6) {
            throw new OutpostException(OutpostException.Kind.PROTOCOL, "snapshot of " + globalTag + " answered a "
                    + a.kind().jsonName() + " answer with columns " + a.schema());
        }
        String hash = s != null && s.fresh() ? s.hash : header(f, "X-Outpost-State");
        Map<String, String[]> folders = new LinkedHashMap<>();
        for (Row r : a.rows()) {
            folders.put((String) r.get(0), new String[] {(String) r.get(1), (String) r.get(2)});
        }
        if (s == null || !s.fresh()) {
            state = new Pinned(hash, expiry(f), folders);
        }
        Snapshot snap = assemble(a, hash);
        last = snap;
        return snap;
    }

    /** Decodes inline folders and fetches the others (in parallel) through their pinned URLs. */
    private Snapshot assemble(Answer a, String hash) throws OutpostException {
        Map<String, Snapshot.FolderSnapshot> folders = new LinkedHashMap<>();
        Map<String, long[]> validity = new java.util.HashMap<>();
        long bytes = a.encodedBytes();
        List<Future<Answer>> pending = new ArrayList<>();
        List<Row> byUrl = new ArrayList<>();
        Semaphore slots = new Semaphore(PARALLEL_FETCHES);
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (Row r : a.rows()) {
                String url = (String) r.get(4);
                if (url != null) {
                    byUrl.add(r);
                    pending.add(pool.submit(() -> {
                        slots.acquire();
                        try {
                            return client.fetch(url);
                        } finally {
                            slots.release();
                        }
                    }));
                }
            }
            int next = 0;
            for (Row r : a.rows()) {
                String folder = (String) r.get(0);
                Answer part;
                if (r.get(4) == null) {
                    byte[] inline = (byte[]) r.get(5);
                    try {
                        part = WholeAnswers.decode(inline);
                    } catch (java.io.IOException e) {
                        throw new OutpostException(OutpostException.Kind.CORRUPT, "inline answer of " + folder
                                + " in the snapshot: " + e.getMessage(), 200, e);
                    }
                } else {
                    part = await(pending.get(next++), byUrl.get(next - 1));
                    bytes += part.encodedBytes();
                }
                if (part.kind() != AnswerKind.IOVS) {
                    throw new OutpostException(OutpostException.Kind.PROTOCOL, "snapshot part of " + folder + " is a "
                            + part.kind().jsonName() + " answer");
                }
                String keyType = a.schema().size() > 8 ? (String) r.get(6) : null;
                if (keyType != null) {
                    long since = (Long) r.get(7);
                    long until = (Long) r.get(8);
                    long[] common = validity.computeIfAbsent(keyType, k -> new long[] {0, Long.MAX_VALUE});
                    common[0] = Math.max(common[0], since);
                    common[1] = Math.min(common[1], until);
                }
                folders.put(folder, new Snapshot.FolderSnapshot(folder, (String) r.get(1), (String) r.get(2), keyType,
                        part));
            }
        }
        return new Snapshot(globalTag, hash, a.validSince(), a.validUntil(), validity(validity.get("time")),
                validity(validity.get("run-lumi")), folders, 1 + pending.size(), bytes);
    }

    private static Snapshot.Validity validity(long[] common) {
        return common == null ? null : new Snapshot.Validity(common[0], common[1]);
    }

    private static Answer await(Future<Answer> f, Row row) throws OutpostException {
        try {
            return f.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof OutpostException oe) {
                throw oe;
            }
            throw new OutpostException(OutpostException.Kind.PROTOCOL, "fetching " + row.get(4) + ": " + e.getCause(),
                    0, e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new OutpostException(OutpostException.Kind.INTERRUPTED, "interrupted while fetching " + row.get(4),
                    0, e);
        }
    }

    /** A pinned URL that the service cannot answer for: gone (410), or newer than a replica has seen (404). */
    private static boolean generationGone(OutpostException e) {
        return e.httpStatus() == 410 || e.httpStatus() == 404;
    }

    private static String pin(String path, String generation) {
        return Paths.PREFIX + "/pin/" + generation + path.substring(Paths.PREFIX.length());
    }

    private static String header(Fetched f, String name) throws OutpostException {
        String v = f.headers().get(name);
        if (v == null || !v.matches("[0-9a-f]{16}")) {
            throw new OutpostException(OutpostException.Kind.PROTOCOL, "answer without a valid " + name + " header");
        }
        return v;
    }

    private static long expiry(Fetched f) {
        return System.nanoTime() + Math.max(0, f.freshSeconds()) * 1_000_000_000L;
    }
}
