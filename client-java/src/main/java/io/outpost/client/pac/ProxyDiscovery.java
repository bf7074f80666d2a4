package io.outpost.client.pac;

import io.outpost.client.Endpoint;
import io.outpost.client.Ticker;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.Proxy;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Proxy discovery by proxy auto-config (docs/client-failover.md, "Proxy auto-config"): the first PAC file of the
 * configured URLs that can be read decides, per server host, which proxies to use. Answers are cached per host and
 * renewed (the file read again) after {@link #REFRESH}, as frontier_client resets its proxy list every 5 minutes;
 * a renewal that fails keeps the previous answer. Thread-safe.
 */
public final class ProxyDiscovery {
    /** The URL that {@code auto} (Web Proxy Auto-Discovery) stands for. */
    public static final String WPAD_URL = "http://wpad/wpad.dat";
    public static final Duration REFRESH = Duration.ofMinutes(5);
    private static final System.Logger LOG = System.getLogger("io.outpost.client");
    private static final String RHINO_MODULE = "org.mozilla.rhino";
    private static final String RHINO_CLASS = "org.mozilla.javascript.Context";
    /** The error of a client configured with a PAC URL where Rhino is missing (tests match its start). */
    public static final String ENGINE_MISSING = "proxy auto-config (proxyconfigurl, --proxy-config) needs the"
            + " JavaScript engine Rhino, which is not available: add the dependency org.mozilla:rhino (optional in"
            + " outpost-client), and on the module path --add-modules " + RHINO_MODULE;

    private final List<String> urls;
    private final Ticker ticker;
    private final int connectMillis;
    private final int readMillis;
    private final Map<String, Cached> byHost = new ConcurrentHashMap<>();
    private PacScript script;
    private long scriptRead;

    private record Cached(PacAnswer answer, long at) {
    }

    private ProxyDiscovery(List<String> urls, Ticker ticker, Duration connectTimeout, Duration readTimeout) {
        this.urls = List.copyOf(urls);
        this.ticker = ticker;
        this.connectMillis = (int) Math.min(Integer.MAX_VALUE, connectTimeout.toMillis());
        this.readMillis = (int) Math.min(Integer.MAX_VALUE, readTimeout.toMillis());
    }

    /**
     * Reads the first readable PAC file of {@code urls} and evaluates it for every server, so that a bad file is
     * an error here (IllegalArgumentException naming its URL) rather than at a later request.
     */
    public static ProxyDiscovery start(List<String> urls, List<Endpoint> servers, Ticker ticker,
                                       Duration connectTimeout, Duration readTimeout) {
        requireEngine();
        ProxyDiscovery d = new ProxyDiscovery(urls, ticker, connectTimeout, readTimeout);
        d.script = d.read();
        d.scriptRead = ticker.read();
        for (Endpoint s : servers) {
            d.byHost.put(s.host(), new Cached(d.evaluate(d.script, s), d.scriptRead));
        }
        return d;
    }

    /**
     * Fails clearly when the JavaScript engine is missing: Rhino is an optional dependency, needed only by clients
     * configured with a PAC URL. Checked before {@link PacScript} is first loaded (it is the one class that uses
     * Rhino), so that the error names what to add instead of being a NoClassDefFoundError of a Rhino class.
     */
    static void requireEngine() {
        Module self = ProxyDiscovery.class.getModule();
        boolean present;
        if (self.isNamed()) {
            // requires static: Rhino is readable only when it was resolved (--add-modules or another module's
            // requires).
            ModuleLayer layer = self.getLayer();
            present = layer != null && layer.findModule(RHINO_MODULE).filter(self::canRead).isPresent();
        } else {
            try {
                Class.forName(RHINO_CLASS, false, ProxyDiscovery.class.getClassLoader());
                present = true;
            } catch (ClassNotFoundException | LinkageError e) {
                present = false;
            }
        }
        if (!present) {
            throw new IllegalStateException(ENGINE_MISSING);
        }
    }

    /** The URL a configured value stands for: {@code auto} is {@value #WPAD_URL}. */
    public static String expand(String configured) {
        String v = configured.strip();
        return v.equalsIgnoreCase("auto") ? WPAD_URL : v;
    }

    /** The PAC answer for this server's host, from the cache while it is younger than {@link #REFRESH}. */
    public PacAnswer answerFor(Endpoint server) {
        long now = ticker.read();
        Cached c = byHost.get(server.host());
        if (c != null && now - c.at() < REFRESH.toNanos()) {
            return c.answer();
        }
        synchronized (this) {
            if (now - scriptRead >= REFRESH.toNanos()) {
                try {
                    script = read();
                } catch (IllegalArgumentException e) {
                    LOG.log(System.Logger.Level.WARNING, "keeping the previous proxy auto-config: " + e.getMessage());
                }
                scriptRead = now;
            }
            try {
                c = new Cached(evaluate(script, server), now);
            } catch (IllegalArgumentException e) {
                if (c == null) {
                    throw e;
                }
                LOG.log(System.Logger.Level.WARNING, "keeping the previous proxy list for " + server.host() + ": "
                        + e.getMessage());
                c = new Cached(c.answer(), now);
            }
            byHost.put(server.host(), c);
            return c.answer();
        }
    }

    /** The URL of the PAC file in use. */
    public synchronized String source() {
        return script.url();
    }

    private PacAnswer evaluate(PacScript s, Endpoint server) {
        return PacAnswer.parse(s.findProxy(server.toString(), server.host()), s.url());
    }

    /** The first PAC file that can be read, compiled; unreadable ones are skipped, a bad one is an error. */
    private PacScript read() {
        List<String> failures = new ArrayList<>();
        for (String configured : urls) {
            String url = expand(configured);
            String source;
            try {
                source = fetch(url);
            } catch (IOException | RuntimeException e) {
                failures.add(url + " (" + e.getMessage() + ")");
                continue;
            }
            return PacScript.compile(source, url);
        }
        throw new IllegalArgumentException("no proxy auto-config file could be read: " + String.join("; ", failures));
    }

    private String fetch(String url) throws IOException {
        URI u = URI.create(url);
        String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
        if (scheme.equals("file")) {
            return Files.readString(Path.of(u), StandardCharsets.UTF_8);
        }
        if (!scheme.equals("http") && !scheme.equals("https")) {
            throw new IOException("only http://, https:// and file:// PAC URLs are supported");
        }
        // Never through a proxy: the PAC file is what says which proxy to use.
        HttpURLConnection c = (HttpURLConnection) u.toURL().openConnection(Proxy.NO_PROXY);
        c.setConnectTimeout(connectMillis);
        c.setReadTimeout(readMillis);
        try {
            int status = c.getResponseCode();
            if (status != 200) {
                throw new IOException("HTTP " + status);
            }
            try (InputStream in = c.getInputStream()) {
                return new String(in.readNBytes(1 << 20), StandardCharsets.UTF_8);
            }
        } finally {
            c.disconnect();
        }
    }
}
