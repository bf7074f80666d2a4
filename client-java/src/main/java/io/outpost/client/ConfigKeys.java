package io.outpost.client;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The keys of the Frontier-style configuration (docs/client-failover.md, "Configuration"), both ways: the text of
 * a {@code (key=value)} group applied to a builder, and a configuration written back as such groups.
 */
final class ConfigKeys {
    /** Plain decimal seconds: no sign, no exponent, no unit. */
    private static final Pattern SECONDS = Pattern.compile("([0-9]+)(?:\\.([0-9]*))?|\\.([0-9]+)");
    private static final long DAY_MILLIS = 86_400_000L;

    private ConfigKeys() {
    }

    /**
     * Applies one group; an error names the group. Unknown keys are ignored, as frontier_client does (a string may
     * be shared with it), but never silently: each gives a warning.
     */
    static void apply(ClientConfig.Builder b, String key, String value) {
        String k = key.strip().toLowerCase(Locale.ROOT);
        String v = value.strip();
        try {
            applyChecked(b, k, v);
        } catch (IllegalArgumentException | ArithmeticException e) {
            throw new IllegalArgumentException("(" + k + "=" + v + "): " + e.getMessage(), e);
        }
    }

    private static void applyChecked(ClientConfig.Builder b, String key, String value) {
        switch (key) {
            case "serverurl" -> b.server(value);
            case "proxyurl" -> b.proxy(value);
            case "backupproxyurl" -> b.backupProxy(value);
            case "proxyconfigurl" -> b.proxyConfig(value);
            case "forcereload" -> b.forceReload(value);
            case "maxagesecs" -> b.maxAgeSecs(number(value));
            case "freshkey" -> b.freshKey(value);
            case "logicalserverurl" -> b.logicalServer(value);
            case "preferipfamily" -> b.preferIpFamily((int) Math.min(number(value), Integer.MAX_VALUE));
            case "writetimeout", "writetimeoutsecs" -> b.writeTimeout(seconds(value));
            case "security" -> b.security(value);
            case "verifykey" -> b.verifyKey(value);
            case "acceptsig1" -> b.acceptSig1(yesNo(value));
            case "maxanswerbytes" -> b.maxAnswerBytes(number(value));
            case "attempttimeout", "attempttimeoutsecs" -> b.attemptTimeout(seconds(value));
            case "failovertoserver" -> b.failoverToServer(yesNo(value));
            case "loadbalance" -> b.loadBalance(loadBalance(value));
            case "connecttimeout", "connecttimeoutsecs" -> b.connectTimeout(seconds(value));
            case "readtimeout", "readtimeoutsecs" -> b.readTimeout(seconds(value));
            case "backoff", "backoffsecs" -> {
                // a first wait over the cap raises the cap: the wait asked for is kept
                Duration base = seconds(value);
                b.backoff(base, b.values().backoffMax.compareTo(base) < 0 ? base : b.values().backoffMax);
            }
            case "retries" -> b.retries((int) Math.min(number(value), Integer.MAX_VALUE));
            case "clientid" -> b.clientId(value);
            case "clientcachemaxbytes", "clientcache" -> b.cacheMaxBytes(number(value));
            case "cachewindow" -> {
                long secs = number(value);
                b.cacheAlign(secs > 0);
                if (secs > 0) {
                    CacheAlign time = b.values().timeAlign;
                    b.timeAlign(new CacheAlign(Math.multiplyExact(secs, 1_000_000_000L), time.divisions()));
                }
            }
            case "cachealign" -> {
                long n = number(value);
                if (n < 1 || n > 1000) {
                    throw new IllegalArgumentException("cachealign must be 1..1000");
                }
                b.timeAlign(new CacheAlign(b.values().timeAlign.length(), (int) n));
                b.runLumiAlign(new CacheAlign(b.values().runLumiAlign.length(), (int) n));
            }
            default -> b.warn("unknown configuration key '" + key + "' ignored");
        }
    }

    /** A configuration as a Frontier-style string: every option, so that it can be logged and parsed back. */
    static String format(ConfigValues c, LoadBalance loadBalance) {
        StringBuilder sb = new StringBuilder();
        c.servers.forEach(s -> group(sb, "serverurl", s));
        c.proxies.forEach(p -> group(sb, "proxyurl", p));
        c.backupProxies.forEach(p -> group(sb, "backupproxyurl", p));
        c.proxyConfigUrls.forEach(p -> group(sb, "proxyconfigurl", p));
        if (!c.forceReload.equals("none")) {
            group(sb, "forcereload", c.forceReload);
        }
        if (c.maxAgeSecs >= 0) {
            group(sb, "maxagesecs", c.maxAgeSecs);
        }
        if (c.freshKey != null) {
            group(sb, "freshkey", c.freshKey);
        }
        if (c.logicalServer != null) {
            group(sb, "logicalserverurl", c.logicalServer);
        }
        group(sb, "preferipfamily", c.preferIpFamily);
        group(sb, "writetimeoutsecs", secs(c.writeTimeout));
        if (c.signedAnswers) {
            group(sb, "security", "sig");
        }
        c.verifyKeys.forEach((id, file) -> group(sb, "verifykey", id + ":" + file));
        if (c.acceptSig1) {
            group(sb, "acceptsig1", "yes");
        }
        group(sb, "maxanswerbytes", c.maxAnswerBytes);
        group(sb, "attempttimeoutsecs", secs(c.attemptTimeout));
        group(sb, "failovertoserver", c.failoverToServer ? "yes" : "no");
        if (loadBalance != LoadBalance.NONE) {
            group(sb, "loadbalance", loadBalance.name().toLowerCase(Locale.ROOT));
        }
        group(sb, "connecttimeout", secs(c.connectTimeout));
        group(sb, "readtimeout", secs(c.readTimeout));
        group(sb, "retries", c.retries);
        group(sb, "backoff", secs(c.backoffBase));
        group(sb, "clientid", c.clientId);
        group(sb, "clientcachemaxbytes", c.cacheMaxBytes);
        group(sb, "cachewindow", c.cacheAlignEnabled ? c.timeAlign.length() / 1_000_000_000L : 0);
        group(sb, "cachealign", c.timeAlign.divisions());
        return sb.toString();
    }

    private static void group(StringBuilder sb, String key, Object value) {
        sb.append('(').append(key).append('=').append(value).append(')');
    }

    private static String secs(Duration d) {
        return BigDecimal.valueOf(d.toMillis()).movePointLeft(3).stripTrailingZeros().toPlainString();
    }

    /** A whole number ≥ 0. */
    static long number(String value) {
        try {
            long n = Long.parseLong(value.strip());
            if (n >= 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // said below
        }
        throw new IllegalArgumentException("expected a whole number >= 0");
    }

    /**
     * Plain decimal seconds to the millisecond, at most a day: a finer value would be rounded one way or another,
     * so it is refused rather than guessed.
     */
    static Duration seconds(String value) {
        Matcher m = SECONDS.matcher(value.strip());
        String fraction = m.matches() ? m.group(2) != null ? m.group(2) : m.group(3) != null ? m.group(3) : "" : null;
        if (fraction == null || !fraction.substring(Math.min(3, fraction.length())).matches("0*")) {
            throw new IllegalArgumentException("expected seconds, to the millisecond");
        }
        String whole = m.group(1) == null ? "0" : m.group(1);
        long millis = whole.length() > 6 ? Long.MAX_VALUE
                : Long.parseLong(whole) * 1000 + Long.parseLong((fraction + "000").substring(0, 3));
        if (millis > DAY_MILLIS) {
            throw new IllegalArgumentException("expected seconds, at most a day (86400)");
        }
        return Duration.ofMillis(millis);
    }

    /** yes/no, true/false, on/off, 1/0, in any case. */
    static boolean yesNo(String value) {
        return switch (value.strip().toLowerCase(Locale.ROOT)) {
            case "yes", "true", "1", "on" -> true;
            case "no", "false", "0", "off" -> false;
            default -> throw new IllegalArgumentException("expected yes or no");
        };
    }

    private static LoadBalance loadBalance(String value) {
        return switch (value.toLowerCase(Locale.ROOT)) {
            case "proxies", "proxy" -> LoadBalance.PROXIES;
            case "servers", "server" -> LoadBalance.SERVERS;
            case "none", "no", "" -> LoadBalance.NONE;
            default -> throw new IllegalArgumentException("loadbalance must be proxies, servers or none");
        };
    }
}
