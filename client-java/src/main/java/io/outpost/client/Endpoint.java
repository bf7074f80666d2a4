package io.outpost.client;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;

/**
 * A server or proxy the client can talk to: an {@code http://host:port[/base-path]} URL. As in Frontier the
 * {@code http://} prefix may be omitted; the port defaults to 80; a server may have a base path under which the
 * {@code /v1/...} API lives.
 */
public record Endpoint(String scheme, String host, int port, String basePath) {

    public Endpoint {
        if (!scheme.equals("http") && !scheme.equals("https")) {
            throw new IllegalArgumentException("only http:// (or https:// for servers) is supported, not " + scheme);
        }
        if (host == null || host.isEmpty()) {
            throw new IllegalArgumentException("endpoint without host");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("bad port " + port);
        }
        if (!basePath.isEmpty() && (!basePath.startsWith("/") || basePath.endsWith("/"))) {
            throw new IllegalArgumentException("base path must start and not end with '/': " + basePath);
        }
    }

    /** Parses {@code http://host:port/path}, {@code host:port}, {@code [::1]:8000}. */
    public static Endpoint parse(String url) {
        String s = url.strip();
        if (s.isEmpty()) {
            throw new IllegalArgumentException("empty endpoint URL");
        }
        if (!s.contains("://")) {
            s = "http://" + s;
        }
        URI u;
        try {
            u = new URI(s);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("bad endpoint URL '" + url + "': " + e.getMessage());
        }
        if (u.getHost() == null) {
            throw new IllegalArgumentException("bad endpoint URL '" + url + "': no host");
        }
        if (u.getRawQuery() != null || u.getRawFragment() != null) {
            throw new IllegalArgumentException("bad endpoint URL '" + url + "': no query or fragment allowed");
        }
        if (u.getRawUserInfo() != null) {
            // never dropped silently: credentials in a URL are not supported
            throw new IllegalArgumentException("bad endpoint URL '" + url + "': no user or password allowed");
        }
        String scheme = u.getScheme().toLowerCase(Locale.ROOT);
        int port = u.getPort() >= 0 ? u.getPort() : scheme.equals("https") ? 443 : 80;
        String path = u.getRawPath() == null ? "" : u.getRawPath();
        while (path.endsWith("/")) {
            path = path.substring(0, path.length() - 1);
        }
        return new Endpoint(scheme, u.getHost(), port, path);
    }

    /** The absolute URL of an API path such as {@code /v1/bin/nodes} on this endpoint. */
    public URI resolve(String apiPath) {
        return URI.create(scheme + "://" + hostForUri() + ":" + port + basePath + apiPath);
    }

    private String hostForUri() {
        return host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
    }

    @Override
    public String toString() {
        return scheme + "://" + hostForUri() + ":" + port + basePath;
    }
}
