package io.outpost.client;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every option of a {@link ClientConfig} with its default: mutable while a {@link ClientConfig.Builder} collects
 * them, {@link #frozen() frozen} (unmodifiable lists and maps) inside a built configuration. The checks live in the
 * builder's setters; this class only holds and copies.
 */
final class ConfigValues {
    List<Endpoint> servers = new ArrayList<>();
    List<Endpoint> proxies = new ArrayList<>();
    List<Endpoint> backupProxies = new ArrayList<>();
    List<String> proxyConfigUrls = new ArrayList<>();
    boolean failoverToServer = true;
    LoadBalance loadBalance = LoadBalance.NONE;
    Duration connectTimeout = Duration.ofSeconds(5);
    Duration readTimeout = Duration.ofSeconds(10);
    Duration writeTimeout = Duration.ofSeconds(5);
    Duration attemptTimeout = Duration.ofSeconds(30);
    int retries = 1;
    Duration backoffBase = Duration.ofMillis(200);
    Duration backoffMax = Duration.ofSeconds(5);
    String clientId = "outpost-client-java/" + OutpostClient.VERSION;
    long cacheMaxBytes = 64L << 20;
    boolean cacheAlignEnabled = true;
    CacheAlign timeAlign = CacheAlign.TIME_DEFAULT;
    CacheAlign runLumiAlign = CacheAlign.RUN_LUMI_DEFAULT;
    Map<String, CacheAlign> folderAlign = new LinkedHashMap<>();
    Duration failedRouteMemory = Duration.ofMinutes(5);
    String snapshot;
    String forceReload = "none";
    long maxAgeSecs = -1;
    String freshKey;
    Endpoint logicalServer;
    int preferIpFamily = 4;
    boolean signedAnswers;
    Map<String, String> verifyKeys = new LinkedHashMap<>();
    boolean acceptSig1;
    long maxAnswerBytes = ClientConfig.DEFAULT_MAX_ANSWER_BYTES;
    List<String> warnings = new ArrayList<>();

    /** A copy whose lists and maps can be changed without touching this one. */
    ConfigValues copy() {
        ConfigValues c = shallowCopy();
        c.servers = new ArrayList<>(servers);
        c.proxies = new ArrayList<>(proxies);
        c.backupProxies = new ArrayList<>(backupProxies);
        c.proxyConfigUrls = new ArrayList<>(proxyConfigUrls);
        c.folderAlign = new LinkedHashMap<>(folderAlign);
        c.verifyKeys = new LinkedHashMap<>(verifyKeys);
        c.warnings = new ArrayList<>(warnings);
        return c;
    }

    /** A copy whose lists and maps cannot be changed, for a built configuration. */
    ConfigValues frozen() {
        ConfigValues c = shallowCopy();
        c.servers = List.copyOf(servers);
        c.proxies = List.copyOf(proxies);
        c.backupProxies = List.copyOf(backupProxies);
        c.proxyConfigUrls = List.copyOf(proxyConfigUrls);
        c.folderAlign = Map.copyOf(folderAlign);
        c.verifyKeys = Collections.unmodifiableMap(new LinkedHashMap<>(verifyKeys));  // in the order given
        c.warnings = List.copyOf(warnings);
        return c;
    }

    private ConfigValues shallowCopy() {
        ConfigValues c = new ConfigValues();
        c.failoverToServer = failoverToServer;
        c.loadBalance = loadBalance;
        c.connectTimeout = connectTimeout;
        c.readTimeout = readTimeout;
        c.writeTimeout = writeTimeout;
        c.attemptTimeout = attemptTimeout;
        c.retries = retries;
        c.backoffBase = backoffBase;
        c.backoffMax = backoffMax;
        c.clientId = clientId;
        c.cacheMaxBytes = cacheMaxBytes;
        c.cacheAlignEnabled = cacheAlignEnabled;
        c.timeAlign = timeAlign;
        c.runLumiAlign = runLumiAlign;
        c.failedRouteMemory = failedRouteMemory;
        c.snapshot = snapshot;
        c.forceReload = forceReload;
        c.maxAgeSecs = maxAgeSecs;
        c.freshKey = freshKey;
        c.logicalServer = logicalServer;
        c.preferIpFamily = preferIpFamily;
        c.signedAnswers = signedAnswers;
        c.acceptSig1 = acceptSig1;
        c.maxAnswerBytes = maxAnswerBytes;
        return c;
    }
}
