package io.outpost.client;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The configuration from environment variables (docs/client-failover.md, "Configuration"): the OUTPOST_* variables,
 * else frontier_client's FRONTIER_* ones, each value checked as the key it stands for.
 */
final class ConfigEnvironment {
    /** Settings read from OUTPOST_* variables, after the servers' strings, and the key each stands for. */
    private static final String[][] SETTINGS = {
        {"OUTPOST_CONNECTTIMEOUTSECS", "connecttimeoutsecs"}, {"OUTPOST_READTIMEOUTSECS", "readtimeoutsecs"},
        {"OUTPOST_RETRIES", "retries"}, {"OUTPOST_LOADBALANCE", "loadbalance"},
        {"OUTPOST_FAILOVERTOSERVER", "failovertoserver"}, {"OUTPOST_ID", "clientid"}};

    private ConfigEnvironment() {
    }

    /**
     * Applies the environment: OUTPOST_SERVER (and OUTPOST_SERVER1..16), each a list of URLs or a Frontier-style
     * string; OUTPOST_PROXY (and 1..24), lists of URLs; when no OUTPOST_SERVER* is set FRONTIER_SERVER(1..16) in
     * the same way, FRONTIER_PROXY(1..24) unless an OUTPOST_PROXY* is set, and FRONTIER_{CONNECT,READ}TIMEOUTSECS
     * where the OUTPOST_ ones are not set. FRONTIER_PROXYCONFIGS, FRONTIER_FORCERELOAD and FRONTIER_FRESHKEY are
     * always read. A variable of white space only is not set.
     */
    static void apply(ClientConfig.Builder b, Map<String, String> env) {
        List<String> servers = listVars(env, "OUTPOST_SERVER", ClientConfig.MAX_SERVERS);
        List<String> proxies = listVars(env, "OUTPOST_PROXY", ClientConfig.MAX_PROXIES);
        boolean frontier = servers.isEmpty();
        if (frontier) {
            servers = listVars(env, "FRONTIER_SERVER", ClientConfig.MAX_SERVERS);
            if (proxies.isEmpty()) {
                proxies = listVars(env, "FRONTIER_PROXY", ClientConfig.MAX_PROXIES);
            }
        }
        // the environment's lists replace the builder's; cleared first, as a server string may name proxies too
        if (!servers.isEmpty()) {
            b.servers(List.of());
        }
        if (!proxies.isEmpty()) {
            b.proxies(List.of());
        }
        for (String v : servers) {
            if (v.contains("(")) {
                b.frontierString(v);
            } else {
                FrontierStrings.list(v).forEach(url -> ConfigKeys.apply(b, "serverurl", url));
            }
        }
        if (!proxies.isEmpty() && !b.values().proxies.isEmpty()) {
            // add to the string's proxies or replace them? Either could be meant.
            throw new IllegalArgumentException("proxyurl given twice: in the configuration string of the server"
                    + " variable and in OUTPOST_PROXY/FRONTIER_PROXY; name the proxies in one place");
        }
        proxies.forEach(v -> FrontierStrings.list(v).forEach(url -> ConfigKeys.apply(b, "proxyurl", url)));
        for (String url : value(env, "FRONTIER_PROXYCONFIGS").split(";")) {
            if (!url.isBlank()) {
                ConfigKeys.apply(b, "proxyconfigurl", url);
            }
        }
        if (!value(env, "FRONTIER_FORCERELOAD").isEmpty()) {
            ConfigKeys.apply(b, "forcereload", value(env, "FRONTIER_FORCERELOAD"));
        }
        if (env.get("FRONTIER_FRESHKEY") != null) {
            ConfigKeys.apply(b, "freshkey", value(env, "FRONTIER_FRESHKEY"));
        }
        for (String[] setting : SETTINGS) {
            String v = value(env, setting[0]);
            if (v.isEmpty() && frontier && setting[0].endsWith("TIMEOUTSECS")) {
                v = value(env, setting[0].replace("OUTPOST_", "FRONTIER_"));
            }
            if (!v.isEmpty()) {
                ConfigKeys.apply(b, setting[1], v);
            }
        }
    }

    private static String value(Map<String, String> env, String name) {
        String v = env.get(name);
        return v == null ? "" : v.strip();
    }

    /** NAME, then NAME1 … NAMEmax, those set. */
    private static List<String> listVars(Map<String, String> env, String name, int max) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i <= max; i++) {
            String v = value(env, i == 0 ? name : name + i);
            if (!v.isEmpty()) {
                out.add(v);
            }
        }
        return out;
    }
}
