package io.outpost.loadtest;

import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The load generator only ever targets this machine: any non-loopback host is refused before a request is sent. */
public final class Loopback {
    private static final Pattern JDBC_HOST = Pattern.compile("^jdbc:[a-z0-9]+:(?:thin:@)?//\\[?([^/:\\]?;]+)\\]?");

    private Loopback() {
    }

    public static boolean isLoopbackHost(String host) {
        if (host == null || host.isBlank()) {
            return false;
        }
        try {
            for (InetAddress a : InetAddress.getAllByName(host)) {
                if (!a.isLoopbackAddress()) {
                    return false;
                }
            }
            return true;
        } catch (UnknownHostException e) {
            return false;
        }
    }

    /** Throws unless {@code url} (http://host:port/...) names a loopback host. */
    public static String requireHttp(String url) {
        URI u = URI.create(url);
        if (!"http".equals(u.getScheme()) || !isLoopbackHost(u.getHost())) {
            throw new IllegalArgumentException("refusing " + url + ": the load generator only targets http:// on a "
                    + "loopback address (127.0.0.1, ::1, localhost)");
        }
        return url;
    }

    /** Throws unless a JDBC URL is a local file database (SQLite) or names a loopback host. */
    public static String requireJdbc(String url) {
        if (url.startsWith("jdbc:sqlite:")) {
            return url;
        }
        Matcher m = JDBC_HOST.matcher(url);
        if (!m.find() || !isLoopbackHost(m.group(1))) {
            throw new IllegalArgumentException("refusing " + url + ": the load generator only targets SQLite files or "
                    + "databases on a loopback address");
        }
        return url;
    }
}
