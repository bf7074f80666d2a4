package io.outpost.client.pac;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.mozilla.javascript.BaseFunction;
import org.mozilla.javascript.Context;
import org.mozilla.javascript.Function;
import org.mozilla.javascript.RhinoException;
import org.mozilla.javascript.Scriptable;
import org.mozilla.javascript.ScriptableObject;

/**
 * One proxy auto-config file, evaluated by Rhino with the standard helper functions (pac-helpers.js, and
 * {@code dnsResolve}/{@code myIpAddress} here), whose {@code FindProxyForURL(url, host)} can be called. Each file
 * gets a scope of its own with the safe standard objects only (no access to Java), so one file cannot change what
 * another sees. Calls are serialised: a Rhino scope is not meant to be entered by several threads at once, and
 * answers are cached per host anyway.
 */
public final class PacScript {
    /**
     * The last file compiled from each PAC URL: a client whose file is the same as an earlier client's reuses its
     * scope instead of building one (docs/decisions.md, "Proxy auto-config in the clients"). One entry per URL, so
     * a file that changes replaces its entry.
     */
    private static final Map<String, PacScript> BY_URL = new ConcurrentHashMap<>();
    private static final String HELPERS = readHelpers();

    private final String url;
    private final String source;
    private final ScriptableObject scope;
    private final Function findProxy;

    private PacScript(String url, String source, ScriptableObject scope, Function findProxy) {
        this.url = url;
        this.source = source;
        this.scope = scope;
        this.findProxy = findProxy;
    }

    /**
     * Compiles {@code source}, read from {@code url}, or returns the script compiled earlier from the same URL and
     * text; a script that does not parse or run is an error naming the URL (and is not kept).
     */
    public static PacScript compile(String source, String url) {
        PacScript earlier = BY_URL.get(url);
        if (earlier != null && earlier.source.equals(source)) {
            return earlier;
        }
        PacScript script = evaluate(source, url);
        BY_URL.put(url, script);
        return script;
    }

    private static PacScript evaluate(String source, String url) {
        try (Context cx = enter()) {
            // Unsealed, so that the standard objects a file does not use are never made (Rhino makes them lazily;
            // sealing would make them all): the first PAC file of a process costs ~15% less (docs/benchmarks.md).
            ScriptableObject scope = cx.initSafeStandardObjects(null, false);
            scope.defineProperty("dnsResolve", new NativeHelper("dnsResolve", 1), ScriptableObject.READONLY);
            scope.defineProperty("myIpAddress", new NativeHelper("myIpAddress", 0), ScriptableObject.READONLY);
            cx.evaluateString(scope, HELPERS, "pac-helpers.js", 1, null);
            cx.evaluateString(scope, source, url, 1, null);
            Object f = scope.get("FindProxyForURL", scope);
            if (!(f instanceof Function fn)) {
                throw new IllegalArgumentException("proxy auto-config " + url + " defines no FindProxyForURL(url, host)");
            }
            return new PacScript(url, source, scope, fn);
        } catch (RhinoException e) {
            throw new IllegalArgumentException("proxy auto-config " + url + " does not parse: " + e.details()
                    + " (line " + e.lineNumber() + ")");
        }
    }

    public String url() {
        return url;
    }

    /** {@code FindProxyForURL(targetUrl, host)} as text (null if it returned nothing); errors name the PAC URL. */
    public synchronized String findProxy(String targetUrl, String host) {
        try (Context cx = enter()) {
            Object r = findProxy.call(cx, scope, scope, new Object[] {targetUrl, host});
            return r == null || r instanceof org.mozilla.javascript.Undefined ? null : Context.toString(r);
        } catch (RhinoException e) {
            throw new IllegalArgumentException("proxy auto-config " + url + ": FindProxyForURL(" + targetUrl + ", "
                    + host + ") failed: " + e.details());
        }
    }

    private static Context enter() {
        Context cx = Context.enter();
        cx.setInterpretedMode(true); // run once per host: compiling to bytecode would cost more than it saves
        cx.setLanguageVersion(Context.VERSION_ES6);
        return cx;
    }

    /** The two helpers that need the network stack: name lookup and this host's address. */
    private static final class NativeHelper extends BaseFunction {
        private final String name;
        private final int arity;

        NativeHelper(String name, int arity) {
            this.name = name;
            this.arity = arity;
        }

        @Override
        public Object call(Context cx, Scriptable scope, Scriptable thisObj, Object[] args) {
            if (name.equals("myIpAddress")) {
                return myIpAddress();
            }
            String host = args.length > 0 ? Context.toString(args[0]) : "";
            String ip = resolve(host);
            return ip; // null when the name does not resolve, as the standard says
        }

        @Override
        public String getFunctionName() {
            return name;
        }

        @Override
        public int getArity() {
            return arity;
        }
    }

    /** The first IPv4 address of {@code host} (PAC helpers compare dotted quads), else its first address, or null. */
    static String resolve(String host) {
        try {
            InetAddress[] all = InetAddress.getAllByName(host);
            for (InetAddress a : all) {
                if (a instanceof Inet4Address) {
                    return a.getHostAddress();
                }
            }
            return all.length > 0 ? all[0].getHostAddress() : null;
        } catch (UnknownHostException | SecurityException e) {
            return null;
        }
    }

    static String myIpAddress() {
        try {
            String ip = resolve(InetAddress.getLocalHost().getHostName());
            return ip != null ? ip : "127.0.0.1";
        } catch (UnknownHostException e) {
            return "127.0.0.1";
        }
    }

    private static String readHelpers() {
        try (InputStream in = PacScript.class.getResourceAsStream("pac-helpers.js")) {
            if (in == null) {
                throw new IllegalStateException("pac-helpers.js is missing from the client jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
