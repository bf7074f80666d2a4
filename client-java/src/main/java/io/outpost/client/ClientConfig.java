package io.outpost.client;

import java.time.Duration;
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
 * configuration string, command line) can be applied in order. The grammar of the strings is {@code FrontierStrings},
 * the meaning of each key {@code ConfigKeys}, the environment {@code ConfigEnvironment}, the rules across values
 * {@code ConfigRules}; the values themselves are held in a {@code ConfigValues}. What is left here is the public
 * surface: an accessor and a builder setter for each option. That surface is the whole of its length, and is kept in
 * one class so that an application finds every option in one place.
 */
public final class ClientConfig {
    /** Used when the builder is given no server (a configuration string or environment must name one). */
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

    private final ConfigValues v;
    private final LoadBalance loadBalance;

    private ClientConfig(ConfigValues values, LoadBalance loadBalance) {
        ConfigValues frozen = values.frozen();
        if (frozen.servers.isEmpty()) {
            frozen.servers = List.of(Endpoint.parse(DEFAULT_SERVER));
        }
        this.v = frozen;
        this.loadBalance = loadBalance;
    }

    /** With security=sig, also accept the older {@code outpost-sig-1} signatures ({@code acceptsig1=yes}). */
    public boolean acceptSig1() {
        return v.acceptSig1;
    }

    /** The largest answer body accepted ({@code maxanswerbytes}), compressed and decoded alike. */
    public long maxAnswerBytes() {
        return v.maxAnswerBytes;
    }

    /** The longest one attempt may take, connect to the end of the answer ({@code attempttimeoutsecs}). */
    public Duration attemptTimeout() {
        return v.attemptTimeout;
    }

    /** frontier_client's security=sig: only answers signed by one of {@link #verifyKeys()} are accepted. */
    public boolean signedAnswers() {
        return v.signedAnswers;
    }

    /** Key id → PEM public key file ({@code verifykey=KEYID:FILE}), in the order given. */
    public Map<String, String> verifyKeys() {
        return v.verifyKeys;
    }

    /**
     * frontier_client's logicalserverurl, or null: the server URL that requests through a proxy name, whichever
     * physical server the route has, so that every physical server shares one cache entry per query.
     */
    public Endpoint logicalServer() {
        return v.logicalServer;
    }

    /** frontier_client's preferipfamily: 4, 6, or 0 for no preference (docs/client-failover.md). */
    public int preferIpFamily() {
        return v.preferIpFamily;
    }

    /** frontier_client's writetimeoutsecs (default 5 s). */
    public Duration writeTimeout() {
        return v.writeTimeout;
    }

    /** frontier_client's forcereload: {@code none}, {@code short}, {@code long}, {@code forever}, or soft…. */
    public String forceReload() {
        return v.forceReload;
    }

    /** frontier_client's maxagesecs: -1 unset, 0 = softlong, N > 0 = accept cached copies at most N s old. */
    public long maxAgeSecs() {
        return v.maxAgeSecs;
    }

    /** frontier_client's freshkey, or null. */
    public String freshKey() {
        return v.freshKey;
    }

    /** Proxy auto-config URLs ({@code proxyconfigurl}), tried in order; {@code auto} stands for WPAD. */
    public List<String> proxyConfigUrls() {
        return v.proxyConfigUrls;
    }

    /** What was ignored or overridden while building this configuration (each also logged once per process). */
    public List<String> warnings() {
        return v.warnings;
    }

    /**
     * The offline snapshot file named by a server URL {@code sqlite:/path/snapshot.db}, or null: when set, the
     * client answers from that file without any network (docs/operations.md, "Offline snapshots").
     */
    public String snapshot() {
        return v.snapshot;
    }

    public static Builder builder() {
        return new Builder(new ConfigValues());
    }

    /** The defaults: {@value #DEFAULT_SERVER}, no proxy. */
    public static ClientConfig defaults() {
        return builder().build();
    }

    /**
     * A configuration from a Frontier-style string, e.g. {@code (serverurl=http://a:8000)(proxyurl=http://p:3128)},
     * or a list of server URLs. A string that names no server is refused (no guessed localhost).
     */
    public static ClientConfig parse(String frontierStyle) {
        return builder().frontierString(frontierStyle).buildNamingAServer("the configuration string");
    }

    /**
     * A configuration from environment variables ({@code System.getenv()} or a map in tests); refused when they
     * name no server.
     */
    public static ClientConfig fromEnvironment(Map<String, String> env) {
        return builder().environment(env).buildNamingAServer("the environment (OUTPOST_SERVER or FRONTIER_SERVER)");
    }

    /** A builder holding this configuration, to change some of it. */
    public Builder toBuilder() {
        Builder b = new Builder(v.copy());
        b.values.loadBalance = loadBalance;
        return b;
    }

    public List<Endpoint> servers() {
        return v.servers;
    }

    public List<Endpoint> proxies() {
        return v.proxies;
    }

    public List<Endpoint> backupProxies() {
        return v.backupProxies;
    }

    public boolean failoverToServer() {
        return v.failoverToServer;
    }

    public LoadBalance loadBalance() {
        return loadBalance;
    }

    public Duration connectTimeout() {
        return v.connectTimeout;
    }

    public Duration readTimeout() {
        return v.readTimeout;
    }

    public int retries() {
        return v.retries;
    }

    public Duration backoffBase() {
        return v.backoffBase;
    }

    public Duration backoffMax() {
        return v.backoffMax;
    }

    public String clientId() {
        return v.clientId;
    }

    public long cacheMaxBytes() {
        return v.cacheMaxBytes;
    }

    public boolean cacheAlignEnabled() {
        return v.cacheAlignEnabled;
    }

    /** The alignment of at-time queries on this folder, by its key type; null when alignment is off. */
    public CacheAlign alignFor(String folder, boolean runLumi) {
        if (!v.cacheAlignEnabled) {
            return null;
        }
        CacheAlign own = v.folderAlign.get(folder);
        return own != null ? own : runLumi ? v.runLumiAlign : v.timeAlign;
    }

    public Duration failedRouteMemory() {
        return v.failedRouteMemory;
    }

    /** The options as a Frontier-style string (every option, so it can be logged and parsed back). */
    @Override
    public String toString() {
        return ConfigKeys.format(v, loadBalance);
    }

    /** Mutable builder; {@link #build()} leaves it unchanged and can be called again. */
    public static final class Builder {
        private final ConfigValues values;

        private Builder(ConfigValues values) {
            this.values = values;
        }

        /** Adds a server (tried in the order added). */
        public Builder server(String url) {
            if (url.strip().startsWith(SNAPSHOT_SCHEME)) {
                String file = url.strip().substring(SNAPSHOT_SCHEME.length());
                if (file.isEmpty()) {
                    throw new IllegalArgumentException("'" + url + "' names no snapshot file");
                }
                values.snapshot = file;
                return this;
            }
            ConfigRules.add("serverurl", values.servers, Endpoint.parse(url), MAX_SERVERS, "servers", this::warn);
            return this;
        }

        /** Replaces the server list. */
        public Builder servers(List<String> urls) {
            values.servers.clear();
            urls.forEach(this::server);
            return this;
        }

        /** Adds a proxy (tried in the order added). */
        public Builder proxy(String url) {
            ConfigRules.add("proxyurl", values.proxies, ConfigRules.proxy(url), MAX_PROXIES, "proxies", this::warn);
            return this;
        }

        /** Replaces the proxy list. */
        public Builder proxies(List<String> urls) {
            values.proxies.clear();
            urls.forEach(this::proxy);
            return this;
        }

        /** Adds a backup proxy, tried after every proxy; as in Frontier this also turns failover to servers off. */
        public Builder backupProxy(String url) {
            ConfigRules.add("backupproxyurl", values.backupProxies, ConfigRules.proxy(url), MAX_PROXIES,
                    "backup proxies", this::warn);
            values.failoverToServer = false;
            return this;
        }

        /**
         * Adds a proxy auto-config (PAC) URL: {@code http://…}, {@code https://…}, {@code file://…} (the scheme in
         * any case) or {@code auto} (WPAD, {@code http://wpad/wpad.dat}). The first one that can be read chooses the
         * proxies per server, ahead of the configured proxies (docs/client-failover.md, "Proxy auto-config").
         */
        public Builder proxyConfig(String url) {
            String v = url == null ? "" : url.strip();
            String lower = v.toLowerCase(Locale.ROOT);
            if (lower.equals("auto")) {
                v = "auto";
            } else if (!lower.startsWith("http://") && !lower.startsWith("https://") && !lower.startsWith("file:/")) {
                throw new IllegalArgumentException("proxyconfigurl must be http://…, file://… or auto, not '" + url
                        + "'");
            }
            ConfigRules.add("proxyconfigurl", values.proxyConfigUrls, v, MAX_PROXY_CONFIGS, "proxy auto-config URLs",
                    this::warn);
            return this;
        }

        /** Replaces the proxy auto-config URLs. */
        public Builder proxyConfigs(List<String> urls) {
            values.proxyConfigUrls.clear();
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
            values.forceReload = v;
            return this;
        }

        /** frontier_client's maxagesecs: accept cached copies at most this old; 0 = forcereload softlong. */
        public Builder maxAgeSecs(long secs) {
            if (secs < 0) {
                throw new IllegalArgumentException("maxagesecs must not be negative: " + secs);
            }
            values.maxAgeSecs = secs;
            return this;
        }

        /** frontier_client's freshkey (a {@code long} prefix extends it to long-lived answers); empty = none. */
        public Builder freshKey(String key) {
            values.freshKey = key == null || key.isBlank() ? null : key.strip();
            return this;
        }

        /** frontier_client's logicalserverurl: the server URL requests through a proxy name (null = none). */
        public Builder logicalServer(String url) {
            values.logicalServer = url == null || url.isBlank() ? null : Endpoint.parse(url);
            return this;
        }

        /** frontier_client's preferipfamily: 4 (default), 6 or 0 (no preference). */
        public Builder preferIpFamily(int family) {
            if (family != 0 && family != 4 && family != 6) {
                throw new IllegalArgumentException("preferipfamily must be 4, 6 or 0, not " + family);
            }
            values.preferIpFamily = family;
            return this;
        }

        /** With security=sig, also accept {@code outpost-sig-1} signatures (default no: they bind no expiry). */
        public Builder acceptSig1(boolean yes) {
            values.acceptSig1 = yes;
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
            values.maxAnswerBytes = bytes;
            return this;
        }

        /**
         * The longest one attempt may take, connect, request and the whole answer (default 30 s): a server that
         * sends a byte now and then, so that the read timeout never fires, is still ended.
         */
        public Builder attemptTimeout(Duration d) {
            values.attemptTimeout = ConfigRules.positive(d, "attemptTimeout");
            return this;
        }

        /** frontier_client's writetimeoutsecs (default 5 s, at least 1 ms). */
        public Builder writeTimeout(Duration d) {
            values.writeTimeout = ConfigRules.positive(d, "writeTimeout");
            return this;
        }

        /**
         * frontier_client's security: {@code sig} accepts only answers whose signature verifies with a
         * {@link #verifyKey} (docs/client-failover.md "Signed answers"); {@code none} (the default) checks none.
         */
        public Builder security(String value) {
            values.signedAnswers = switch (value.strip().toLowerCase(Locale.ROOT)) {
                case "sig" -> true;
                case "none", "" -> false;
                default -> throw new IllegalArgumentException("security must be sig or none, not '" + value + "'");
            };
            return this;
        }

        /**
         * A public key answers may be signed with, {@code KEYID:FILE} (PEM); repeatable, for key rotation. The same
         * key again is used once; one key id with another file is refused (which key would be meant?).
         */
        public Builder verifyKey(String idAndFile) {
            ConfigRules.verifyKey(values, idAndFile, this::warn);
            return this;
        }

        /** Whether to connect to the servers directly once every proxy failed (default true). */
        public Builder failoverToServer(boolean yes) {
            values.failoverToServer = yes;
            return this;
        }

        public Builder loadBalance(LoadBalance lb) {
            values.loadBalance = Objects.requireNonNull(lb, "loadBalance");
            return this;
        }

        /** Time to open a TCP connection to a proxy or server (default 5 s, at least 1 ms). */
        public Builder connectTimeout(Duration d) {
            values.connectTimeout = ConfigRules.positive(d, "connectTimeout");
            return this;
        }

        /** Longest wait for any read of an answer (default 10 s, at least 1 ms). */
        public Builder readTimeout(Duration d) {
            values.readTimeout = ConfigRules.positive(d, "readTimeout");
            return this;
        }

        /** Extra passes over all routes after the first one failed, each after a jittered backoff (default 1). */
        public Builder retries(int n) {
            if (n < 0 || n > 10) {
                throw new IllegalArgumentException("retries must be 0..10, not " + n);
            }
            values.retries = n;
            return this;
        }

        /** Backoff before retry pass k is random in [d/2, d] with d = min(max, base * 2^(k-1)); base 0 = no wait. */
        public Builder backoff(Duration base, Duration max) {
            if (base.isNegative() || max.isNegative() || max.compareTo(base) < 0) {
                throw new IllegalArgumentException("backoff needs 0 <= base <= max, not " + base + ", " + max);
            }
            values.backoffBase = base;
            values.backoffMax = max;
            return this;
        }

        /**
         * application/version, sent in X-Outpost-Client with the pid and user (default outpost-client-java/V):
         * printable ASCII without spaces, which separate the header's fields.
         */
        public Builder clientId(String id) {
            if (id == null || id.isBlank() || id.strip().chars().anyMatch(c -> c <= 0x20 || c > 0x7E)) {
                throw new IllegalArgumentException("clientid must be printable ASCII without spaces, e.g. myjob/1.2: "
                        + id);
            }
            values.clientId = id.strip();
            return this;
        }

        /** In-process cache size in bytes of encoded answers; 0 turns the cache off (default 64 MiB). */
        public Builder cacheMaxBytes(long bytes) {
            if (bytes < 0) {
                throw new IllegalArgumentException("cacheMaxBytes must not be negative: " + bytes);
            }
            values.cacheMaxBytes = bytes;
            return this;
        }

        /** Whether at-time queries fetch an aligned window (default true); false asks the exact at-time URL. */
        public Builder cacheAlign(boolean enabled) {
            values.cacheAlignEnabled = enabled;
            return this;
        }

        /** Window of time folders (default 600 s, N = 1). */
        public Builder timeAlign(CacheAlign a) {
            values.timeAlign = Objects.requireNonNull(a);
            return this;
        }

        /** Window of run-lumi folders (default one run, N = 1). */
        public Builder runLumiAlign(CacheAlign a) {
            values.runLumiAlign = Objects.requireNonNull(a);
            return this;
        }

        /** Window of one folder, overriding the default of its key type. */
        public Builder folderAlign(String folder, CacheAlign a) {
            values.folderAlign.put(Paths.checkPath(folder), Objects.requireNonNull(a));
            return this;
        }

        /** How long a failed endpoint stays postponed behind healthy ones (default 5 min, as Frontier). */
        public Builder failedRouteMemory(Duration d) {
            values.failedRouteMemory = ConfigRules.positive(d, "failedRouteMemory");
            return this;
        }

        /**
         * Applies a Frontier-style configuration string: {@code (key=value)} groups, text outside them ignored,
         * nested parentheses allowed in values, unknown keys ignored with a warning (docs/client-failover.md lists
         * the keys); or, without any '(', a list of server URLs separated by ';', ',' or white space.
         */
        public Builder frontierString(String s) {
            if (FrontierStrings.isList(s)) {
                FrontierStrings.list(s).forEach(url -> ConfigKeys.apply(this, "serverurl", url));
                return this;
            }
            for (Map.Entry<String, String> kv : FrontierStrings.parse(s)) {
                ConfigKeys.apply(this, kv.getKey(), kv.getValue());
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
            ConfigEnvironment.apply(this, env);
            return this;
        }

        /** Checks the combination of options and returns the immutable configuration. */
        public ClientConfig build() {
            LoadBalance lb = ConfigRules.checkCombination(values, this::warn);
            return new ClientConfig(values, lb);
        }

        /** {@link #build()}, refusing a configuration that names neither a server nor a snapshot. */
        private ClientConfig buildNamingAServer(String source) {
            if (values.servers.isEmpty() && values.snapshot == null) {
                throw new IllegalArgumentException("no server configured in " + source
                        + ": name one, e.g. (serverurl=http://host:8000)");
            }
            return build();
        }

        /** The values collected so far, for the keys that change part of one (backoff, cachewindow, cachealign). */
        ConfigValues values() {
            return values;
        }

        /** Records a warning for {@link ClientConfig#warnings()} and logs it, once per process. */
        void warn(String message) {
            if (!values.warnings.contains(message)) {
                values.warnings.add(message);
            }
            if (LOGGED.add(message)) {
                LOG.log(System.Logger.Level.WARNING, "outpost client: " + message);
            }
        }
    }
}
