package io.outpost.client;

import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

/**
 * The rules a {@link ClientConfig.Builder} applies beyond one setter's range check: repeated values, the form of a
 * proxy and of a verifykey, and the combinations checked when a configuration is built.
 */
final class ConfigRules {
    private ConfigRules() {
    }

    /** Adds a value of a repeatable key: the same one again is used once, with a warning. */
    static <T> void add(String key, List<T> list, T value, int max, String what, Consumer<String> warn) {
        if (list.contains(value)) {
            warn.accept(key + " " + value + " given twice; used once");
        } else if (list.size() >= max) {
            throw new IllegalArgumentException("at most " + max + " " + what);
        } else {
            list.add(value);
        }
    }

    /** A proxy is http://host:port: no https, no path. */
    static Endpoint proxy(String url) {
        Endpoint e = Endpoint.parse(url);
        if (!e.scheme().equals("http") || !e.basePath().isEmpty()) {
            throw new IllegalArgumentException("a proxy is http://host:port, not " + url);
        }
        return e;
    }

    /** A timeout of at least a millisecond. */
    static Duration positive(Duration d, String name) {
        if (d == null || d.toMillis() < 1) {
            throw new IllegalArgumentException(name + " must be at least 1 ms, not " + d);
        }
        return d;
    }

    /**
     * Adds a {@code KEYID:FILE} verify key. The same key again is used once; one key id with another file is refused
     * (which key would be meant?).
     */
    static void verifyKey(ConfigValues values, String idAndFile, Consumer<String> warn) {
        int colon = idAndFile.indexOf(':');
        String id = colon < 0 ? "" : idAndFile.substring(0, colon).strip();
        String file = colon < 0 ? "" : idAndFile.substring(colon + 1).strip();
        if (!id.matches("[A-Za-z0-9._-]{1,64}") || file.isEmpty()) {
            throw new IllegalArgumentException("verifykey is KEYID:FILE (a key id of letters, digits, '.', '_',"
                    + " '-' and a PEM public key file), not '" + idAndFile + "'");
        }
        String known = values.verifyKeys.get(id);
        if (known != null && !known.equals(file)) {
            throw new IllegalArgumentException("verifykey: key id '" + id + "' given twice, with different files");
        }
        if (known != null) {
            warn.accept("verifykey " + id + ":" + file + " given twice; used once");
        }
        values.verifyKeys.put(id, file);
    }

    /**
     * Checks the combination of options: refuses one that leaves no route or nothing to verify with, warns about
     * what is ignored or overridden, and returns the load balancing that applies.
     */
    static LoadBalance checkCombination(ConfigValues values, Consumer<String> warn) {
        if (!values.failoverToServer && values.proxies.isEmpty() && values.backupProxies.isEmpty()
                && values.proxyConfigUrls.isEmpty()) {
            throw new IllegalStateException("failoverToServer=no with no proxy leaves no route to any server");
        }
        if (values.signedAnswers && values.verifyKeys.isEmpty()) {
            throw new IllegalStateException("security=sig needs at least one verifykey=KEYID:FILE to verify with");
        }
        if (!values.signedAnswers && !values.verifyKeys.isEmpty()) {
            warn.accept("verifykey is ignored without security=sig: answers are not verified");
        }
        boolean jvmPrefersV6 = Boolean.getBoolean("java.net.preferIPv6Addresses");
        if (values.preferIpFamily == 6 && !jvmPrefersV6 || values.preferIpFamily == 4 && jvmPrefersV6) {
            // Proxies are connected in the preferred order by the client; a direct connection to a server goes to
            // the address the JDK lists first, in an order set once for the whole JVM.
            warn.accept("preferipfamily=" + values.preferIpFamily + " orders the proxies' addresses; direct"
                    + " connections follow this JVM's order: start it with -Djava.net.preferIPv6Addresses="
                    + (values.preferIpFamily == 6));
        }
        if (values.loadBalance == LoadBalance.PROXIES && !values.proxyConfigUrls.isEmpty()) {
            // As frontier_client: the PAC file's order is the site's choice, so no random start over it.
            warn.accept("loadbalance=proxies is turned off: the proxy auto-config decides the order of the proxies");
            return LoadBalance.NONE;
        }
        return values.loadBalance;
    }
}
