package io.outpost.client;

import io.outpost.client.internal.AnswerCache;
import io.outpost.client.internal.FailedRoutes;
import io.outpost.client.internal.Failover;
import io.outpost.client.internal.HttpTransport;
import io.outpost.client.internal.OfflineQueries;
import io.outpost.client.internal.Transport;
import io.outpost.client.pac.ProxyDiscovery;
import io.outpost.wire.AnswerDecoder;
import io.outpost.wire.AnswerHeader;
import io.outpost.wire.AnswerKind;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.random.RandomGenerator;

/**
 * Client of the Outpost native API (docs/api.md). One instance is meant to be shared by every thread of an
 * application: it is thread-safe, keeps HTTP/1.1 connections alive, remembers failed servers and proxies, and
 * caches answers in process as long as the server allows.
 *
 * <p>At-time queries ({@link #find}, {@link #objectsAt}) are cache-aligned by default: they fetch the browse of a
 * fixed window containing t ({@link CacheAlign}) and select the objects valid at t locally, so that many jobs
 * at nearby keys share one cached URL. Failover, refresh and retry rules are in docs/client-failover.md.
 *
 * <pre>{@code
 * OutpostClient client = OutpostClient.create(ClientConfig.fromEnvironment(System.getenv()));
 * Optional<Iov> pedestal = client.find("/DEMO/Calo/Pedestals", OutpostClient.HEAD, 7, Keys.parse("2026-01-01T01:00Z"));
 * }</pre>
 */
public final class OutpostClient implements AutoCloseable {
    /** The HEAD of a folder: the latest version of every IOV. */
    public static final String HEAD = "HEAD";
    /** This library's version (the Maven project version). */
    public static final String VERSION = readVersion();

    private final ClientConfig config;
    private final Failover failover;
    private final AnswerCache cache;
    private final EventListener listener;
    private final Map<String, Boolean> runLumiByFolder = new ConcurrentHashMap<>();
    /** Non-null in offline mode: every query is answered from a snapshot file, nothing goes over the network. */
    private final OfflineQueries offline;

    private OutpostClient(Builder b) {
        this.config = b.config;
        this.listener = b.listener;
        this.cache = AnswerCache.create(config.cacheMaxBytes(), b.ticker);
        Transport transport = b.transport != null ? b.transport
                : new HttpTransport(config.connectTimeout(), config.readTimeout(), config.logicalServer(),
                        config.preferIpFamily(), !config.signedAnswers(), config.maxAnswerBytes(),
                        config.attemptTimeout());
        this.offline = config.snapshot() == null ? null : OfflineQueries.open(config.snapshot());
        // Read and evaluated now, so that a bad PAC file is an error of create(), not of a later query.
        ProxyDiscovery discovery = offline != null || config.proxyConfigUrls().isEmpty() ? null
                : ProxyDiscovery.start(config.proxyConfigUrls(), config.servers(), b.ticker, config.connectTimeout(),
                        config.readTimeout());
        this.failover = new Failover(config, transport, new FailedRoutes(b.ticker, config.failedRouteMemory()),
                listener, b.ticker, b.sleeper, b.random, Map.of(
                        "User-Agent", clientHeader(config.clientId()),
                        "X-Outpost-Client", clientHeader(config.clientId()),
                        "Accept", "application/octet-stream, */*"), discovery);
    }

    /** A client with this configuration. */
    public static OutpostClient create(ClientConfig config) {
        return builder(config).build();
    }

    /** A client configured from the environment (see {@link ClientConfig.Builder#environment(Map)}). */
    public static OutpostClient fromEnvironment() {
        return create(ClientConfig.fromEnvironment(System.getenv()));
    }

    public static Builder builder(ClientConfig config) {
        return new Builder(config);
    }

    public ClientConfig config() {
        return config;
    }

    // ---- catalogue -------------------------------------------------------------------------------------------

    /** Every folder and folderset. */
    public List<NodeInfo> nodes() throws OutpostException {
        if (offline != null) {
            return offline.nodes();
        }
        List<NodeInfo> nodes = fetch(Paths.nodes(), AnswerKind.NODES).rows().stream().map(NodeInfo::of).toList();
        nodes.forEach(n -> {
            if (n.folder()) {
                runLumiByFolder.putIfAbsent(n.path(), n.isRunLumi());
            }
        });
        return nodes;
    }

    /** The channels of a folder. */
    public List<ChannelInfo> channels(String folder) throws OutpostException {
        if (offline != null) {
            return offline.channels(folder);
        }
        return fetch(Paths.channels(folder), AnswerKind.CHANNELS).rows().stream().map(ChannelInfo::of).toList();
    }

    /** The tags defined on a node (folder or folderset). */
    public List<TagInfo> tags(String node) throws OutpostException {
        if (offline != null) {
            return offline.tags(node);
        }
        return fetch(Paths.tags(node), AnswerKind.TAGS).rows().stream().map(TagInfo::of).toList();
    }

    /** The tag of this folder that {@code tag} (maybe a parent folderset's tag) resolves to. */
    public TagInfo resolveTag(String folder, String tag) throws OutpostException {
        if (offline != null) {
            return offline.resolveTag(folder, tag);
        }
        List<Row> rows = fetch(Paths.tag(tag, folder), AnswerKind.TAG).rows();
        if (rows.size() != 1) {
            throw new OutpostException(OutpostException.Kind.PROTOCOL, "tag answer with " + rows.size() + " rows");
        }
        return TagInfo.of(rows.get(0));
    }

    // ---- IOVs ------------------------------------------------------------------------------------------------

    /** The object of one channel valid at key t, if any. */
    public Optional<Iov> find(String folder, String tag, long channel, long t) throws OutpostException {
        List<Iov> found = objectsAt(folder, tag, ChannelSelection.channel(channel), t);
        return found.isEmpty() ? Optional.empty() : Optional.of(found.get(0));
    }

    /**
     * The objects valid at key t in the selected channels, ordered by channel. Cache-aligned unless turned off in
     * the configuration: the answer is selected from the browse of the window containing t.
     */
    public List<Iov> objectsAt(String folder, String tag, ChannelSelection channels, long t) throws OutpostException {
        if (offline != null) {
            return offline.objectsAt(folder, tag, Objects.requireNonNull(channels, "channels"), t);
        }
        return objectsAtAnswer(folder, tag, channels, t).iovs();
    }

    /**
     * As {@link #objectsAt}, as a whole {@code iovs} answer whose validSince/validUntil give the keys for which the
     * same rows are valid: with alignment the nearest IOV edges around t within the window, else the server's.
     */
    public Answer objectsAtAnswer(String folder, String tag, ChannelSelection channels, long t)
            throws OutpostException {
        Objects.requireNonNull(channels, "channels");
        if (offline != null) {
            throw OfflineQueries.unsupported("objectsAtAnswer (use objectsAt)");
        }
        CacheAlign align = alignment(folder);
        if (align == null) {
            return atExact(folder, tag, channels, t);
        }
        long lo = align.lo(t);
        long hi = align.hiInclusive(t);
        String windowPath = Paths.browse(tag, lo, hi, channels, Order.CHANNEL_SINCE, folder);
        Answer window = AnswerChecks.kind(fetchChecked(windowPath, a -> AnswerChecks.asked(config.signedAnswers(), a,
                folder, channels, lo, hi, "GET " + windowPath)), AnswerKind.IOVS, windowPath);
        long validSince = lo;
        long validUntil = hi == Keys.MAX ? Keys.MAX : hi + 1;
        List<Row> valid = new ArrayList<>();
        for (Row r : window.rows()) {
            long since = (Long) r.get(1);
            long until = (Long) r.get(2);
            if (since <= t && t < until) {
                valid.add(r);
            }
            for (long edge : new long[] {since, until}) {
                if (edge <= t) {
                    validSince = Math.max(validSince, edge);
                } else {
                    validUntil = Math.min(validUntil, edge);
                }
            }
        }
        return new Answer(AnswerKind.IOVS, window.folder(), window.tag(), validSince, validUntil, window.schema(),
                valid, window.encodedBytes());
    }

    /** Every IOV with {@code since <= t2} and {@code until > t1} in the selected channels, whole, in memory. */
    public List<Iov> browse(String folder, String tag, long t1, long t2, ChannelSelection channels, Order order)
            throws OutpostException {
        if (offline != null) {
            return offline.browse(folder, tag, t1, t2, channels, order);
        }
        String path = Paths.browse(tag, t1, t2, channels, order, folder);
        return AnswerChecks.kind(fetchChecked(path, a -> AnswerChecks.asked(config.signedAnswers(), a, folder, channels,
                t1, t2, "GET " + path)), AnswerKind.IOVS, path).iovs();
    }

    /** As {@link #browse}, decoded while it arrives; for answers too large to hold. Never cached in process. */
    public IovStream browseStream(String folder, String tag, long t1, long t2, ChannelSelection channels, Order order)
            throws OutpostException {
        if (offline != null) {
            throw OfflineQueries.unsupported("browseStream (use browse)");
        }
        String path = Paths.browse(tag, t1, t2, channels, order, folder);
        IovStream s = failover.execute(path, response -> {
            AnswerDecoder d = new AnswerDecoder(response.body(), response.contentLength(), config.maxAnswerBytes());
            AnswerHeader h = d.readHeader();
            if (h.kind() != AnswerKind.IOVS || h.schema().size() < 3) {
                throw new OutpostException(OutpostException.Kind.PROTOCOL, "GET " + path + " answered a "
                        + h.kind().jsonName() + " answer with columns " + h.schema());
            }
            return new IovStream(path, d, h);
        }, true);
        return s;
    }

    /** The number of IOVs {@link #browse} would return. */
    public long count(String folder, String tag, long t1, long t2, ChannelSelection channels) throws OutpostException {
        if (offline != null) {
            return offline.count(folder, tag, t1, t2, channels);
        }
        List<Row> rows = fetch(Paths.count(tag, t1, t2, channels, folder), AnswerKind.COUNT).rows();
        if (rows.size() != 1) {
            throw new OutpostException(OutpostException.Kind.PROTOCOL, "count answer with " + rows.size() + " rows");
        }
        return (Long) rows.get(0).get(0);
    }

    /**
     * Any answer of the native API by its path, e.g. {@code /v1/bin/nodes}, decoded whole (cached as the server
     * allows). The path should be canonical (docs/api.md); the query methods build canonical paths.
     */
    public Answer fetch(String apiPath) throws OutpostException {
        return fetchChecked(apiPath, null);
    }

    /** A check of a decoded answer before it is accepted (and cached); throwing fails the attempt. */
    @FunctionalInterface
    private interface AnswerCheck {
        void check(Answer a) throws OutpostException;
    }

    private Answer fetchChecked(String apiPath, AnswerCheck check) throws OutpostException {
        if (offline != null) {
            throw OfflineQueries.unsupported("fetch of a raw API path");
        }
        Answer cached = failover.reload().forces(apiPath) ? null : cache.get(apiPath);
        if (cached != null) {
            listener.onEvent(new ClientEvent.CacheHit(apiPath));
            return cached;
        }
        WholeAnswers.Fetched f = failover.execute(apiPath, r -> {
            WholeAnswers.Fetched read = WholeAnswers.read(r, config.maxAnswerBytes());
            if (check != null) {
                check.check(read.answer());
            }
            return read;
        }, false);
        cache.put(apiPath, f.answer(), failover.reload().capFreshSeconds(f.freshSeconds()));
        return f.answer();
    }

    /**
     * A snapshot session over a global tag (or "HEAD") and optionally a subtree ("" or null for the whole tree):
     * reads the state once per state lifetime and every answer through URLs pinned to it.
     */
    public SnapshotSession snapshotSession(String globalTag, String subtree) {
        return new SnapshotSession(this, globalTag, subtree);
    }

    /** One GET through failover, with the named response headers; not kept in the in-process cache. */
    SnapshotSession.Fetched fetchWithHeaders(String apiPath, List<String> headerNames) throws OutpostException {
        return failover.execute(apiPath, r -> {
            WholeAnswers.Fetched f = WholeAnswers.read(r, config.maxAnswerBytes());
            Map<String, String> headers = new java.util.HashMap<>();
            for (String n : headerNames) {
                String v = r.header(n);
                if (v != null) {
                    headers.put(n, v);
                }
            }
            return new SnapshotSession.Fetched(f.answer(), headers, f.freshSeconds());
        }, false);
    }

    @Override
    public void close() {
        if (offline != null) {
            offline.close();
        }
        // Connections are pooled by the JDK and time out by themselves; the client holds only the transport's timer.
        failover.close();
    }

    // ---- internals -------------------------------------------------------------------------------------------

    private Answer atExact(String folder, String tag, ChannelSelection channels, long t) throws OutpostException {
        String subject = tag + "|" + channels.pathSegment() + "|" + folder;
        String path = Paths.at(tag, t, channels, folder);
        Answer a = failover.reload().forces(path) ? null : cache.getValidAt(subject, t);
        if (a != null) {
            listener.onEvent(new ClientEvent.CacheHit(path));
        } else {
            WholeAnswers.Fetched f = failover.execute(path, response -> {
                WholeAnswers.Fetched read = WholeAnswers.read(response, config.maxAnswerBytes());
                // a signed answer must also be the one asked for: an answer moved here from another key is refused
                // like a bad signature, on this route (the next one may be honest)
                AnswerChecks.asked(config.signedAnswers(), read.answer(), folder, channels, t, t, "GET " + path);
                return read;
            }, false);
            a = AnswerChecks.kind(f.answer(), AnswerKind.IOVS, path);
            cache.putValid(subject, f.validSince(), f.validUntil(), a,
                    failover.reload().capFreshSeconds(f.freshSeconds()));
        }
        return a;
    }

    private Answer fetch(String path, AnswerKind expected) throws OutpostException {
        return AnswerChecks.kind(fetch(path), expected, path);
    }

    /** The window of at-time queries on this folder, or null to ask the exact at-time URL. */
    private CacheAlign alignment(String folder) throws OutpostException {
        if (!config.cacheAlignEnabled()) {
            return null;
        }
        Boolean runLumi = runLumiByFolder.get(folder);
        if (runLumi == null) {
            try {
                nodes();
            } catch (OutpostException e) {
                return null; // no node list: ask the exact at-time URL (docs/client-failover.md)
            }
            runLumi = runLumiByFolder.get(folder);
            if (runLumi == null) {
                return null; // unknown folder: the exact query gets the server's 404
            }
        }
        return config.alignFor(folder, runLumi);
    }

    /** {@code application/version pid user}, sent as X-Outpost-Client and as User-Agent. */
    static String clientHeader(String clientId) {
        String user = System.getProperty("user.name", "unknown").replaceAll("[^\\x21-\\x7E]", "_");
        return clientId + " " + ProcessHandle.current().pid() + " " + (user.isEmpty() ? "unknown" : user);
    }

    private static String readVersion() {
        try (InputStream in = OutpostClient.class.getResourceAsStream("version.properties")) {
            Properties p = new Properties();
            if (in != null) {
                p.load(in);
            }
            String v = p.getProperty("version", "dev");
            // the release number alone, as the C++ client (CMake's project version) reports it
            return v.startsWith("${") ? "dev" : v.replace("-SNAPSHOT", "");
        } catch (IOException e) {
            return "dev";
        }
    }

    /** Builds a client; the hooks other than the configuration are for tests and special deployments. */
    public static final class Builder {
        private final ClientConfig config;
        private EventListener listener = EventListener.NONE;
        private Ticker ticker = Ticker.SYSTEM;
        private Sleeper sleeper = Sleeper.SYSTEM;
        private RandomGenerator random = new Random();
        private Transport transport;

        private Builder(ClientConfig config) {
            this.config = Objects.requireNonNull(config, "config");
        }

        /** Receives every attempt, decision and cache hit (synchronously; must be thread-safe and fast). */
        public Builder eventListener(EventListener l) {
            listener = Objects.requireNonNull(l);
            return this;
        }

        public Builder ticker(Ticker t) {
            ticker = Objects.requireNonNull(t);
            return this;
        }

        public Builder sleeper(Sleeper s) {
            sleeper = Objects.requireNonNull(s);
            return this;
        }

        /** Source of load-balancing starts and backoff jitter. */
        public Builder random(RandomGenerator r) {
            random = Objects.requireNonNull(r);
            return this;
        }

        Builder transport(Transport t) {
            transport = t;
            return this;
        }

        public OutpostClient build() {
            return new OutpostClient(this);
        }
    }
}
