package io.outpost.client;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Immutable client configuration: where to connect (servers, proxies), how long to wait, how often to retry, how
 * to identify, and how to cache. Built in code with {@link #builder()}, from the environment with
 * {@link #fromEnvironment(Map)}, or from a Frontier-style string with {@link #parse(String)}; every key, unit,
 * default and limit is listed in docs/client-failover.md.
 *
 * <p>Builder setters reject impossible values at once (IllegalArgumentException); {@link Builder#build()} rejects
 * combinations that leave no route. A setter called twice keeps the last value, so layers (defaults, environment,
 * configuration string, command line) can be applied in order.
 */
public final class ClientConfig {
    /** Used when no server is configured. */
    public static final String DEFAULT_SERVER = "http://localhost:8000";
    /** The default largest answer body accepted: 256 MiB ({@code maxanswerbytes}). */
    public static final long DEFAULT_MAX_ANSWER_BYTES = 256L << 20;
    /** Frontier's limits on list lengths. */
    public static final int MAX_SERVERS = 16;
    /** A server URL with this prefix names an offline snapshot file instead of a server. */
    public static final String SNAPSHOT_SCHEME = "sqlite:";
    public static final int MAX_PROXIES = 24;
    /** Frontier's limit on proxy auto-config URLs. */
    public static final int MAX_PROXY_CONFIGS = 16;
    private static final System.Logger LOG = System.getLogger("io.outpost.client");
    /** Warnings already logged by this process: each is logged once, however many configurations repeat it. */
    private static final Set<String> LOGGED = ConcurrentHashMap.newKeySet();

    private final List<Endpoint> servers;
    private final List<Endpoint> proxies;
    private final List<Endpoint> backupProxies;
    private final boolean failoverToServer;
    private final LoadBalance loadBalance;
    private final Duration connectTimeout;
    private final Duration readTimeout;
    private final int retries;
    private final Duration backoffBase;
    private final Duration backoffMax;
    private final String clientId;
    private final long cacheMaxBytes;
    private final boolean cacheAlignEnabled;
    private final CacheAlign timeAlign;
    private final CacheAlign runLumiAlign;
    private final Map<String, CacheAlign> folderAlign;
    private final Duration failedRouteMemory;
    private final String snapshot;
    private final List<String> proxyConfigUrls;
    private final List<String> warnings;
    private final String forceReload;
    private final long maxAgeSecs;
    private final String freshKey;
    private final Endpoint logicalServer;
    private final int preferIpFamily;
    private final Duration writeTimeout;
    private final boolean signedAnswers;
    private final Map<String, String> verifyKeys;
    private final boolean acceptSig1;
    private final long maxAnswerBytes;
    private final Duration attemptTimeout;

    private ClientConfig(Builder b, LoadBalance loadBalance) {
        this.servers = List.copyOf(b.servers.isEmpty() ? List.of(Endpoint.parse(DEFAULT_SERVER)) : b.servers);
        this.proxies = List.copyOf(b.proxies);
        this.backupProxies = List.copyOf(b.backupProxies);
        this.failoverToServer = b.failoverToServer;
        this.loadBalance = loadBalance;
        this.connectTimeout = b.connectTimeout;
        this.readTimeout = b.readTimeout;
        this.retries = b.retries;
        this.backoffBase = b.backoffBase;
        this.backoffMax = b.backoffMax;
        this.clientId = b.clientId;
        this.cacheMaxBytes = b.cacheMaxBytes;
        this.cacheAlignEnabled = b.cacheAlignEnabled;
        this.timeAlign = b.timeAlign;
        this.runLumiAlign = b.runLumiAlign;
        this.folderAlign = Map.copyOf(b.folderAlign);
        this.failedRouteMemory = b.failedRouteMemory;
        this.snapshot = b.snapshot;
        this.proxyConfigUrls = List.copyOf(b.proxyConfigUrls);
        this.warnings = List.copyOf(b.warnings);
        this.forceReload = b.forceReload;
        this.maxAgeSecs = b.maxAgeSecs;
        this.freshKey = b.freshKey;
        this.logicalServer = b.logicalServer;
        this.preferIpFamily = b.preferIpFamily;
        this.writeTimeout = b.writeTimeout;
        this.signedAnswers = b.signedAnswers;
        this.verifyKeys = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(b.verifyKeys));
        this.acceptSig1 = b.acceptSig1;
        this.maxAnswerBytes = b.maxAnswerBytes;
        this.attemptTimeout = b.attemptTimeout;
    }

    /** With security=sig, also accept the older {@code outpost-sig-1} signatures ({@code acceptsig1=yes}). */
    public boolean acceptSig1() {
        return acceptSig1;
    }

    /** The largest answer body accepted ({@code maxanswerbytes}), compressed and decoded alike. */
    public long maxAnswerBytes() {
        return maxAnswerBytes;
    }

    /** The longest one attempt may take, connect to the end of the answer ({@code attempttimeoutsecs}). */
    public Duration attemptTimeout() {
        return attemptTimeout;
    }

    /** frontier_client's security=sig: only answers signed by one of {@link #verifyKeys()} are accepted. */
    public boolean signedAnswers() {
        return signedAnswers;
    }

    /** Key id → PEM public key file ({@code verifykey=KEYID:FILE}), in the order given. */
    public Map<String, String> verifyKeys() {
        return verifyKeys;
    }

    /**
     * frontier_client's logicalserverurl, or null: the server URL that requests through a proxy name, whichever
     * physical server the route has, so that every physical server shares one cache entry per query.
     */
    public Endpoint logicalServer() {
        return logicalServer;
    }

    /** frontier_client's preferipfamily: 4, 6, or 0 for no preference (docs/client-failover.md). */
    public int preferIpFamily() {
        return preferIpFamily;
    }

    /** frontier_client's writetimeoutsecs (default 5 s). */
    public Duration writeTimeout() {
        return writeTimeout;
    }

    /** frontier_client's forcereload: {@code none}, {@code short}, {@code long}, {@code forever}, or soft…. */
    public String forceReload() {
        return forceReload;
    }

    /** frontier_client's maxagesecs: -1 unset, 0 = softlong, N > 0 = accept cached copies at most N s old. */
    public long maxAgeSecs() {
        return maxAgeSecs;
    }

    /** frontier_client's freshkey, or null. */
    public String freshKey() {
        return freshKey;
    }

    /** Proxy auto-config URLs ({@code proxyconfigurl}), tried in order; {@code auto} stands for WPAD. */
    public List<String> proxyConfigUrls() {
        return proxyConfigUrls;
    }

    /** What was ignored or overridden while building this configuration (each also logged once per process). */
    public List<String> warnings() {
        return warnings;
    }

    /**
     * The offline snapshot file named by a server URL {@code sqlite:/path/snapshot.db}, or null: when set, the
     * client answers from that file without any network (docs/operations.md, "Offline snapshots").
     */
    public String snapshot() {
        return snapshot;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The defaults: {@value #DEFAULT_SERVER}, no proxy. */
    public static ClientConfig defaults() {
        return builder().build();
    }

    /** A configuration from a Frontier-style string, e.g. {@code (serverurl=http://a:8000)(proxyurl=http://p:3128)}. */
    public static ClientConfig parse(String frontierStyle) {
        return builder().frontierString(frontierStyle).build();
    }

    /** A configuration from environment variables ({@code System.getenv()} or a map in tests). */
    public static ClientConfig fromEnvironment(Map<String, String> env) {
        return builder().environment(env).build();
    }

    /** A builder holding this configuration, to change some of it. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.servers.addAll(servers);
        b.proxies.addAll(proxies);
        b.backupProxies.addAll(backupProxies);
        b.failoverToServer = failoverToServer;
        b.loadBalance = loadBalance;
        b.connectTimeout = connectTimeout;
        b.readTimeout = readTimeout;
        b.retries = retries;
        b.backoffBase = backoffBase;
        b.backoffMax = backoffMax;
        b.clientId = clientId;
        b.cacheMaxBytes = cacheMaxBytes;
        b.cacheAlignEnabled = cacheAlignEnabled;
        b.timeAlign = timeAlign;
        b.runLumiAlign = runLumiAlign;
        b.folderAlign.putAll(folderAlign);
        b.failedRouteMemory = failedRouteMemory;
        b.proxyConfigUrls.addAll(proxyConfigUrls);
        b.warnings.addAll(warnings);
        b.forceReload = forceReload;
        b.maxAgeSecs = maxAgeSecs;
        b.freshKey = freshKey;
        b.logicalServer = logicalServer;
        b.preferIpFamily = preferIpFamily;
        b.writeTimeout = writeTimeout;
        b.signedAnswers = signedAnswers;
        b.verifyKeys.putAll(verifyKeys);
        b.acceptSig1 = acceptSig1;
        b.maxAnswerBytes = maxAnswerBytes;
        b.attemptTimeout = attemptTimeout;
        return b;
    }

    public List<Endpoint> servers() {
        return servers;
    }

    public List<Endpoint> proxies() {
        return proxies;
    }

    public List<Endpoint> backupProxies() {
        return backupProxies;
    }

    public boolean failoverToServer() {
        return failoverToServer;
    }

    public LoadBalance loadBalance() {
        return loadBalance;
    }

    public Duration connectTimeout() {
        return connectTimeout;
    }

    public Duration readTimeout() {
        return readTimeout;
    }

    public int retries() {
        return retries;
    }

    public Duration backoffBase() {
        return backoffBase;
    }

    public Duration backoffMax() {
        return backoffMax;
    }

    public String clientId() {
        return clientId;
    }

    public long cacheMaxBytes() {
        return cacheMaxBytes;
    }

    public boolean cacheAlignEnabled() {
        return cacheAlignEnabled;
    }

    /** The alignment of at-time queries on this folder, by its key type; null when alignment is off. */
    public CacheAlign alignFor(String folder, boolean runLumi) {
        if (!cacheAlignEnabled) {
            return null;
        }
        CacheAlign own = folderAlign.get(folder);
        return own != null ? own : runLumi ? runLumiAlign : timeAlign;
    }

    public Duration failedRouteMemory() {
        return failedRouteMemory;
    }

    /** The options as a Frontier-style string (every option, so it can be logged and parsed back). */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        servers.forEach(s -> sb.append("(serverurl=").append(s).append(')'));
        proxies.forEach(p -> sb.append("(proxyurl=").append(p).append(')'));
        backupProxies.forEach(p -> sb.append("(backupproxyurl=").append(p).append(')'));
        proxyConfigUrls.forEach(p -> sb.append("(proxyconfigurl=").append(p).append(')'));
        if (!forceReload.equals("none")) {
            sb.append("(forcereload=").append(forceReload).append(')');
        }
        if (maxAgeSecs >= 0) {
            sb.append("(maxagesecs=").append(maxAgeSecs).append(')');
        }
        if (freshKey != null) {
            sb.append("(freshkey=").append(freshKey).append(')');
        }
        if (logicalServer != null) {
            sb.append("(logicalserverurl=").append(logicalServer).append(')');
        }
        sb.append("(preferipfamily=").append(preferIpFamily).append(')');
        sb.append("(writetimeoutsecs=").append(secs(writeTimeout)).append(')');
        if (signedAnswers) {
            sb.append("(security=sig)");
        }
        verifyKeys.forEach((id, file) -> sb.append("(verifykey=").append(id).append(':').append(file).append(')'));
        if (acceptSig1) {
            sb.append("(acceptsig1=yes)");
        }
        sb.append("(maxanswerbytes=").append(maxAnswerBytes).append(')');
        sb.append("(attempttimeoutsecs=").append(secs(attemptTimeout)).append(')');
        sb.append("(failovertoserver=").append(failoverToServer ? "yes" : "no").append(')');
        if (loadBalance != LoadBalance.NONE) {
            sb.append("(loadbalance=").append(loadBalance.name().toLowerCase(Locale.ROOT)).append(')');
        }
        sb.append("(connecttimeout=").append(secs(connectTimeout)).append(')');
        sb.append("(readtimeout=").append(secs(readTimeout)).append(')');
        sb.append("(retries=").append(retries).append(')');
        sb.append("(backoff=").append(secs(backoffBase)).append(')');
        sb.append("(clientid=").append(clientId).append(')');
        sb.append("(clientcachemaxbytes=").append(cacheMaxBytes).append(')');
        sb.append("(cachewindow=").append(cacheAlignEnabled ? timeAlign.length() / 1_000_000_000L : 0).append(')');
        sb.append("(cachealign=").append(timeAlign.divisions()).append(')');
        return sb.toString();
    }

    private static String secs(Duration d) {
        return java.math.BigDecimal.valueOf(d.toMillis()).movePointLeft(3).stripTrailingZeros().toPlainString();
    }

    /** Mutable builder; {@link #build()} leaves it unchanged and can be called again. */
    public static final class Builder {
        private final List<Endpoint> servers = new ArrayList<>();
        private final List<Endpoint> proxies = new ArrayList<>();
        private final List<Endpoint> backupProxies = new ArrayList<>();
        private boolean failoverToServer = true;
        private LoadBalance loadBalance = LoadBalance.NONE;
        private Duration connectTimeout = Duration.ofSeconds(5);
        private Duration readTimeout = Duration.ofSeconds(10);
        private int retries = 1;
        private Duration backoffBase = Duration.ofMillis(200);
        private Duration backoffMax = Duration.ofSeconds(5);
        private String clientId = "outpost-client-java/" + OutpostClient.VERSION;
        private long cacheMaxBytes = 64L << 20;
        private boolean cacheAlignEnabled = true;
        private CacheAlign timeAlign = CacheAlign.TIME_DEFAULT;
        private CacheAlign runLumiAlign = CacheAlign.RUN_LUMI_DEFAULT;
        private final Map<String, CacheAlign> folderAlign = new LinkedHashMap<>();
        private Duration failedRouteMemory = Duration.ofMinutes(5);
        private String snapshot;
        private final List<String> proxyConfigUrls = new ArrayList<>();
        private final List<String> warnings = new ArrayList<>();
        private String forceReload = "none";
        private long maxAgeSecs = -1;
        private String freshKey;
        private Endpoint logicalServer;
        private int preferIpFamily = 4;
        private Duration writeTimeout = Duration.ofSeconds(5);
        private boolean signedAnswers;
        private final Map<String, String> verifyKeys = new LinkedHashMap<>();
        private boolean acceptSig1;
        private long maxAnswerBytes = DEFAULT_MAX_ANSWER_BYTES;
        private Duration attemptTimeout = Duration.ofSeconds(30);

        private Builder() {
        }

        /** Adds a server (tried in the order added). */
        public Builder server(String url) {
            if (url.strip().startsWith(SNAPSHOT_SCHEME)) {
                String file = url.strip().substring(SNAPSHOT_SCHEME.length());
                if (file.isEmpty()) {
                    throw new IllegalArgumentException("'" + url + "' names no snapshot file");
                }
                snapshot = file;
                return this;
            }
            return add(servers, Endpoint.parse(url), MAX_SERVERS, "servers");
        }

        /** Replaces the server list. */
        public Builder servers(List<String> urls) {
            servers.clear();
            urls.forEach(this::server);
            return this;
        }

        /** Adds a proxy (tried in the order added). */
        public Builder proxy(String url) {
            return add(proxies, proxyEndpoint(url), MAX_PROXIES, "proxies");
        }

        /** Replaces the proxy list. */
        public Builder proxies(List<String> urls) {
            proxies.clear();
            urls.forEach(this::proxy);
            return this;
        }

        /** Adds a backup proxy, tried after every proxy; as in Frontier this also turns failover to servers off. */
        public Builder backupProxy(String url) {
            add(backupProxies, proxyEndpoint(url), MAX_PROXIES, "backup proxies");
            failoverToServer = false;
            return this;
        }

        /**
         * Adds a proxy auto-config (PAC) URL: {@code http://…}, {@code file://…} or {@code auto} (WPAD,
         * {@code http://wpad/wpad.dat}). The first one that can be read chooses the proxies per server, ahead of
         * the configured proxies (docs/client-failover.md, "Proxy auto-config").
         */
        public Builder proxyConfig(String url) {
            String v = url == null ? "" : url.strip();
            boolean auto = v.equalsIgnoreCase("auto");
            if (!auto && !v.startsWith("http://") && !v.startsWith("https://") && !v.startsWith("file:/")) {
                throw new IllegalArgumentException("proxyconfigurl must be http://…, file://… or auto, not '" + url + "'");
            }
            if (proxyConfigUrls.size() >= MAX_PROXY_CONFIGS) {
                throw new IllegalArgumentException("at most " + MAX_PROXY_CONFIGS + " proxy auto-config URLs");
            }
            if (!proxyConfigUrls.contains(v)) {
                proxyConfigUrls.add(auto ? "auto" : v);
            }
            return this;
        }

        /** Replaces the proxy auto-config URLs. */
        public Builder proxyConfigs(List<String> urls) {
            proxyConfigUrls.clear();
            urls.forEach(this::proxyConfig);
            return this;
        }

        /**
         * frontier_client's forcereload: which lifetime classes are refreshed ({@code none}, {@code short},
         * {@code long}, {@code forever}; with a {@code soft} prefix revalidated instead of reloaded).
         */
        public Builder forceReload(String value) {
            String v = value == null ? "" : value.strip().toLowerCase(Locale.ROOT);
            if (!io.outpost.client.internal.ReloadPolicy.validForceReload(v)) {
                throw new IllegalArgumentException("forcereload must be none, short, long, forever or shortforever,"
                        + " each also with a soft prefix, not '" + value + "'");
            }
            forceReload = v;
            return this;
        }

        /** frontier_client's maxagesecs: accept cached copies at most this old; 0 = forcereload softlong. */
        public Builder maxAgeSecs(long secs) {
            if (secs < 0) {
                throw new IllegalArgumentException("maxagesecs must not be negative: " + secs);
            }
            maxAgeSecs = secs;
            return this;
        }

        /** frontier_client's freshkey (a {@code long} prefix extends it to long-lived answers); empty = none. */
        public Builder freshKey(String key) {
            freshKey = key == null || key.isBlank() ? null : key.strip();
            return this;
        }

        /** frontier_client's logicalserverurl: the server URL requests through a proxy name (null = none). */
        public Builder logicalServer(String url) {
            logicalServer = url == null || url.isBlank() ? null : Endpoint.parse(url);
            return this;
        }

        /** frontier_client's preferipfamily: 4 (default), 6 or 0 (no preference). */
        public Builder preferIpFamily(int family) {
            if (family != 0 && family != 4 && family != 6) {
                throw new IllegalArgumentException("preferipfamily must be 4, 6 or 0, not " + family);
            }
            preferIpFamily = family;
            return this;
        }

        /** With security=sig, also accept {@code outpost-sig-1} signatures (default no: they bind no expiry). */
        public Builder acceptSig1(boolean yes) {
            acceptSig1 = yes;
            return this;
        }

        /**
         * The largest answer body accepted (default 256 MiB), checked against Content-Length before reading and
         * counted while reading, compressed and decoded: a larger answer fails like a corrupt one.
         */
        public Builder maxAnswerBytes(long bytes) {
            if (bytes < 1024) {
                throw new IllegalArgumentException("maxanswerbytes must be at least 1024, not " + bytes);
            }
            maxAnswerBytes = bytes;
            return this;
        }

        /**
         * The longest one attempt may take, connect, request and the whole answer (default 30 s): a server that
         * sends a byte now and then, so that the read timeout never fires, is still ended.
         */
        public Builder attemptTimeout(Duration d) {
            attemptTimeout = positive(d, "attemptTimeout");
            return this;
        }

        /** frontier_client's writetimeoutsecs (default 5 s, at least 1 ms). */
        public Builder writeTimeout(Duration d) {
            writeTimeout = positive(d, "writeTimeout");
            return this;
        }

        /**
         * frontier_client's security: {@code sig} accepts only answers whose signature verifies with a
         * {@link #verifyKey} (docs/client-failover.md "Signed answers"); {@code none} (the default) checks none.
         */
        public Builder security(String value) {
            signedAnswers = switch (value.strip().toLowerCase(Locale.ROOT)) {
                case "sig" -> true;
                case "none", "" -> false;
                default -> throw new IllegalArgumentException("security must be sig or none, not '" + value + "'");
            };
            return this;
        }

        /** A public key answers may be signed with, {@code KEYID:FILE} (PEM); repeatable, for key rotation. */
        public Builder verifyKey(String idAndFile) {
            int colon = idAndFile.indexOf(':');
            String id = colon < 0 ? "" : idAndFile.substring(0, colon).strip();
            if (!id.matches("[A-Za-z0-9._-]{1,64}") || colon == idAndFile.length() - 1) {
                throw new IllegalArgumentException("verifykey is KEYID:FILE (a key id of letters, digits, '.', '_',"
                        + " '-' and a PEM public key file), not '" + idAndFile + "'");
            }
            verifyKeys.put(id, idAndFile.substring(colon + 1).strip());
            return this;
        }

        /** Whether to connect to the servers directly once every proxy failed (default true). */
        public Builder failoverToServer(boolean yes) {
            failoverToServer = yes;
            return this;
        }

        public Builder loadBalance(LoadBalance lb) {
            loadBalance = Objects.requireNonNull(lb, "loadBalance");
            return this;
        }

        /** Time to open a TCP connection to a proxy or server (default 5 s, at least 1 ms). */
        public Builder connectTimeout(Duration d) {
            connectTimeout = positive(d, "connectTimeout");
            return this;
        }

        /** Longest wait for any read of an answer (default 10 s, at least 1 ms). */
        public Builder readTimeout(Duration d) {
            readTimeout = positive(d, "readTimeout");
            return this;
        }

        /** Extra passes over all routes after the first one failed, each after a jittered backoff (default 1). */
        public Builder retries(int n) {
            if (n < 0 || n > 10) {
                throw new IllegalArgumentException("retries must be 0..10, not " + n);
            }
            retries = n;
            return this;
        }

        /** Backoff before retry pass k is random in [d/2, d] with d = min(max, base * 2^(k-1)); base 0 = no wait. */
        public Builder backoff(Duration base, Duration max) {
            if (base.isNegative() || max.isNegative() || max.compareTo(base) < 0) {
                throw new IllegalArgumentException("backoff needs 0 <= base <= max, not " + base + ", " + max);
            }
            backoffBase = base;
            backoffMax = max;
            return this;
        }

        /** application/version, sent in X-Outpost-Client with the pid and user (default outpost-client-java/V). */
        public Builder clientId(String id) {
            if (id == null || id.isBlank() || id.chars().anyMatch(c -> c < 0x20 || c > 0x7E)) {
                throw new IllegalArgumentException("client id must be printable ASCII, e.g. myjob/1.2: " + id);
            }
            clientId = id.strip();
            return this;
        }

        /** In-process cache size in bytes of encoded answers; 0 turns the cache off (default 64 MiB). */
        public Builder cacheMaxBytes(long bytes) {
            if (bytes < 0) {
                throw new IllegalArgumentException("cacheMaxBytes must not be negative: " + bytes);
            }
            cacheMaxBytes = bytes;
            return this;
        }

        /** Whether at-time queries fetch an aligned window (default true); false asks the exact at-time URL. */
        public Builder cacheAlign(boolean enabled) {
            cacheAlignEnabled = enabled;
            return this;
        }

        /** Window of time folders (default 600 s, N = 1). */
        public Builder timeAlign(CacheAlign a) {
            timeAlign = Objects.requireNonNull(a);
            return this;
        }

        /** Window of run-lumi folders (default one run, N = 1). */
        public Builder runLumiAlign(CacheAlign a) {
            runLumiAlign = Objects.requireNonNull(a);
            return this;
        }

        /** Window of one folder, overriding the default of its key type. */
        public Builder folderAlign(String folder, CacheAlign a) {
            folderAlign.put(Paths.checkPath(folder), Objects.requireNonNull(a));
            return this;
        }

        /** How long a failed endpoint stays postponed behind healthy ones (default 5 min, as Frontier). */
        public Builder failedRouteMemory(Duration d) {
            failedRouteMemory = positive(d, "failedRouteMemory");
            return this;
        }

        /**
         * Applies a Frontier-style configuration string: {@code (key=value)} groups, text outside them ignored,
         * nested parentheses allowed in values, unknown keys ignored (docs/client-failover.md lists the keys).
         */
        public Builder frontierString(String s) {
            for (Map.Entry<String, String> kv : FrontierStrings.parse(s)) {
                applyKey(kv.getKey(), kv.getValue());
            }
            return this;
        }

        /**
         * Applies environment variables: OUTPOST_SERVER (a list separated by ';', ',' or spaces, or a
         * Frontier-style string), OUTPOST_SERVER1..16, OUTPOST_PROXY, OUTPOST_PROXY1..24,
         * OUTPOST_CONNECTTIMEOUTSECS, OUTPOST_READTIMEOUTSECS, OUTPOST_RETRIES, OUTPOST_LOADBALANCE,
         * OUTPOST_FAILOVERTOSERVER, OUTPOST_ID. When no OUTPOST_SERVER* is set, the Frontier variables
         * FRONTIER_SERVER, FRONTIER_SERVER1..16, FRONTIER_PROXY, FRONTIER_PROXY1..24 and
         * FRONTIER_{CONNECT,READ}TIMEOUTSECS are used instead.
         */
        public Builder environment(Map<String, String> env) {
            List<String> srv = listVars(env, "OUTPOST_SERVER", MAX_SERVERS);
            List<String> prx = listVars(env, "OUTPOST_PROXY", MAX_PROXIES);
            boolean frontier = srv.isEmpty();
            if (frontier) {
                srv = listVars(env, "FRONTIER_SERVER", MAX_SERVERS);
                if (prx.isEmpty()) {
                    prx = listVars(env, "FRONTIER_PROXY", MAX_PROXIES);
                }
            }
            if (!srv.isEmpty()) {
                servers.clear();
                for (String v : srv) {
                    if (v.contains("(")) {
                        frontierString(v);
                    } else {
                        splitList(v).forEach(this::server);
                    }
                }
            }
            if (!prx.isEmpty()) {
                proxies.clear();
                prx.forEach(v -> splitList(v).forEach(this::proxy));
            }
            if (env.get("FRONTIER_FORCERELOAD") != null && !env.get("FRONTIER_FORCERELOAD").isBlank()) {
                forceReload(env.get("FRONTIER_FORCERELOAD"));
            }
            if (env.get("FRONTIER_FRESHKEY") != null) {
                freshKey(env.get("FRONTIER_FRESHKEY"));
            }
            String pac = env.get("FRONTIER_PROXYCONFIGS");
            if (pac != null && !pac.isBlank()) {
                for (String u : pac.split(";")) {
                    if (!u.isBlank()) {
                        proxyConfig(u);
                    }
                }
            }
            String[][] keys = {
                {"OUTPOST_CONNECTTIMEOUTSECS", "connecttimeoutsecs"}, {"OUTPOST_READTIMEOUTSECS", "readtimeoutsecs"},
                {"OUTPOST_RETRIES", "retries"}, {"OUTPOST_LOADBALANCE", "loadbalance"},
                {"OUTPOST_FAILOVERTOSERVER", "failovertoserver"}, {"OUTPOST_ID", "clientid"}};
            for (String[] k : keys) {
                String v = env.get(k[0]);
                if (frontier && (v == null || v.isBlank()) && k[0].endsWith("TIMEOUTSECS")) {
                    v = env.get(k[0].replace("OUTPOST_", "FRONTIER_"));
                }
                if (v != null && !v.isBlank()) {
                    applyKey(k[1], v.strip());
                }
            }
            return this;
        }

        private void applyKey(String key, String value) {
            switch (key.toLowerCase(Locale.ROOT)) {
                case "serverurl" -> server(value);
                case "proxyurl" -> proxy(value);
                case "backupproxyurl" -> backupProxy(value);
                case "proxyconfigurl" -> proxyConfig(value);
                case "forcereload" -> forceReload(value);
                case "maxagesecs" -> maxAgeSecs(number(key, value));
                case "freshkey" -> freshKey(value);
                case "logicalserverurl" -> logicalServer(value);
                case "preferipfamily" -> preferIpFamily((int) number(key, value));
                case "writetimeout", "writetimeoutsecs" -> writeTimeout(seconds(key, value));
                case "security" -> security(value);
                case "verifykey" -> verifyKey(value);
                case "acceptsig1" -> acceptSig1(yesNo(key, value));
                case "maxanswerbytes" -> maxAnswerBytes(number(key, value));
                case "attempttimeout", "attempttimeoutsecs" -> attemptTimeout(seconds(key, value));
                case "failovertoserver" -> failoverToServer(yesNo(key, value));
                case "loadbalance" -> loadBalance(switch (value.toLowerCase(Locale.ROOT)) {
                    case "proxies", "proxy" -> LoadBalance.PROXIES;
                    case "servers", "server" -> LoadBalance.SERVERS;
                    case "none", "no", "" -> LoadBalance.NONE;
                    default -> throw new IllegalArgumentException("loadbalance must be proxies or servers: " + value);
                });
                case "connecttimeout", "connecttimeoutsecs" -> connectTimeout(seconds(key, value));
                case "readtimeout", "readtimeoutsecs" -> readTimeout(seconds(key, value));
                case "backoff" -> backoff(seconds(key, value), backoffMax.compareTo(seconds(key, value)) < 0
                        ? seconds(key, value) : backoffMax);
                case "retries" -> retries((int) number(key, value));
                case "clientid" -> clientId(value);
                case "clientcachemaxbytes" -> cacheMaxBytes(number(key, value));
                case "cachewindow" -> {
                    long secs = number(key, value);
                    cacheAlign(secs > 0);
                    if (secs > 0) {
                        timeAlign(new CacheAlign(Math.multiplyExact(secs, 1_000_000_000L), timeAlign.divisions()));
                    }
                }
                case "cachealign" -> {
                    long n = number(key, value);
                    if (n < 1 || n > 1000) {
                        throw new IllegalArgumentException("cachealign must be 1..1000, not " + value);
                    }
                    timeAlign(new CacheAlign(timeAlign.length(), (int) n));
                    runLumiAlign(new CacheAlign(runLumiAlign.length(), (int) n));
                }
                default -> warn("unknown configuration key '" + key + "' ignored");
            }
        }

        /** Checks the combination of options and returns the immutable configuration. */
        public ClientConfig build() {
            if (!failoverToServer && proxies.isEmpty() && backupProxies.isEmpty() && proxyConfigUrls.isEmpty()) {
                throw new IllegalStateException("failoverToServer=no with no proxy leaves no route to any server");
            }
            if (signedAnswers && verifyKeys.isEmpty()) {
                throw new IllegalStateException("security=sig needs at least one verifykey=KEYID:FILE to verify with");
            }
            if (!signedAnswers && !verifyKeys.isEmpty()) {
                warn("verifykey is ignored without security=sig: answers are not verified");
            }
            boolean jvmPrefersV6 = Boolean.getBoolean("java.net.preferIPv6Addresses");
            if (preferIpFamily == 6 && !jvmPrefersV6 || preferIpFamily == 4 && jvmPrefersV6) {
                // Proxies are connected in the preferred order by the client; a direct connection to a server goes to
                // the address the JDK lists first, in an order set once for the whole JVM.
                warn("preferipfamily=" + preferIpFamily + " orders the proxies' addresses; direct connections follow"
                        + " this JVM's order: start it with -Djava.net.preferIPv6Addresses=" + (preferIpFamily == 6));
            }
            LoadBalance lb = loadBalance;
            if (lb == LoadBalance.PROXIES && !proxyConfigUrls.isEmpty()) {
                // As frontier_client: the PAC file's order is the site's choice, so no random start over it.
                warn("loadbalance=proxies is turned off: the proxy auto-config decides the order of the proxies");
                lb = LoadBalance.NONE;
            }
            return new ClientConfig(this, lb);
        }

        /** Records a warning for {@link ClientConfig#warnings()} and logs it, once per process. */
        private void warn(String message) {
            if (!warnings.contains(message)) {
                warnings.add(message);
            }
            if (LOGGED.add(message)) {
                LOG.log(System.Logger.Level.WARNING, "outpost client: " + message);
            }
        }

        private static Endpoint proxyEndpoint(String url) {
            Endpoint e = Endpoint.parse(url);
            if (!e.scheme().equals("http") || !e.basePath().isEmpty()) {
                throw new IllegalArgumentException("a proxy is http://host:port, not " + url);
            }
            return e;
        }

        private Builder add(List<Endpoint> list, Endpoint e, int max, String what) {
            if (list.size() >= max) {
                throw new IllegalArgumentException("at most " + max + " " + what);
            }
            if (!list.contains(e)) {
                list.add(e);
            }
            return this;
        }

        private static Duration positive(Duration d, String name) {
            if (d == null || d.toMillis() < 1) {
                throw new IllegalArgumentException(name + " must be at least 1 ms, not " + d);
            }
            return d;
        }

        private static long number(String key, String value) {
            try {
                long n = Long.parseLong(value.strip());
                if (n < 0) {
                    throw new NumberFormatException();
                }
                return n;
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(key + " must be a non-negative integer, not '" + value + "'");
            }
        }

        /** Seconds, possibly fractional ("0.2"), as a Duration. */
        private static Duration seconds(String key, String value) {
            try {
                java.math.BigDecimal secs = new java.math.BigDecimal(value.strip());
                if (secs.signum() < 0) {
                    throw new NumberFormatException();
                }
                return Duration.ofMillis(secs.movePointRight(3).longValue());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(key + " must be a number of seconds, not '" + value + "'");
            }
        }

        private static boolean yesNo(String key, String value) {
            return switch (value.strip().toLowerCase(Locale.ROOT)) {
                case "yes", "true", "1", "on" -> true;
                case "no", "false", "0", "off" -> false;
                default -> throw new IllegalArgumentException(key + " must be yes or no, not '" + value + "'");
            };
        }

        private static List<String> listVars(Map<String, String> env, String name, int max) {
            List<String> out = new ArrayList<>();
            String v = env.get(name);
            if (v != null && !v.isBlank()) {
                out.add(v.strip());
            }
            for (int i = 1; i <= max; i++) {
                String vi = env.get(name + i);
                if (vi != null && !vi.isBlank()) {
                    out.add(vi.strip());
                }
            }
            return out;
        }

        private static List<String> splitList(String v) {
            List<String> out = new ArrayList<>();
            for (String s : v.split("[;,\\s]+")) {
                if (!s.isBlank()) {
                    out.add(s);
                }
            }
            return out;
        }
    }
}
