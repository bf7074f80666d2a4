package io.outpost.client.internal;

import io.outpost.client.Endpoint;
import io.outpost.client.Route;
import java.io.IOException;
import java.io.InputStream;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.HttpURLConnection;
import java.net.InetSocketAddress;
import java.net.Proxy;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;

/**
 * {@link Transport} over {@link HttpURLConnection}: HTTP/1.1 with the JDK's keep-alive pool (per server and proxy),
 * a proxy chosen per request, and a read timeout that applies to every read of the body, which
 * {@code java.net.http.HttpClient} does not offer (its timeout ends when the headers arrive), so a stalled
 * proxy cannot hang a streaming browse. Each attempt also has an overall deadline and a largest body
 * ({@link BoundedBody}), so that no server ends it with an endless, dripping or oversized answer.
 */
public final class HttpTransport implements Transport {
    private final int connectTimeoutMillis;
    private final int readTimeoutMillis;
    private final Endpoint logicalServer;
    private final int preferIpFamily;
    private final boolean followRedirects;
    private final long maxAnswerBytes;
    private final Duration attemptTimeout;
    /** Drops the connections of attempts past {@code attemptTimeout}: started by the first request, ended by close. */
    private ScheduledThreadPoolExecutor timer; // guarded by this
    private boolean closed; // guarded by this

    /**
     * @param logicalServer   frontier_client's logicalserverurl, or null: requests through a proxy name this server
     *                        (so one cache entry serves every physical server), direct ones the route's server
     * @param followRedirects false to hand 3xx answers to the caller (which verifies each hop's signature)
     * @param maxAnswerBytes  the most body bytes read ({@code maxanswerbytes})
     * @param attemptTimeout  the longest an attempt may take, connect to the last byte ({@code attempttimeoutsecs})
     */
    public HttpTransport(Duration connectTimeout, Duration readTimeout, Endpoint logicalServer, int preferIpFamily,
                         boolean followRedirects, long maxAnswerBytes, Duration attemptTimeout) {
        this.connectTimeoutMillis = (int) Math.min(Integer.MAX_VALUE, connectTimeout.toMillis());
        this.readTimeoutMillis = (int) Math.min(Integer.MAX_VALUE, readTimeout.toMillis());
        this.logicalServer = logicalServer;
        this.preferIpFamily = preferIpFamily;
        this.followRedirects = followRedirects;
        this.maxAnswerBytes = maxAnswerBytes;
        this.attemptTimeout = attemptTimeout;
    }

    @Override
    public Response get(Route route, String path, Map<String, String> headers) throws IOException {
        if (route.isDirect()) {
            return get(route, Proxy.NO_PROXY, path, headers);
        }
        // A proxy's addresses in preferipfamily's order: the next one only when the one before cannot be connected.
        List<InetSocketAddress> addresses = proxyAddresses(route.proxy());
        for (int i = 0; ; i++) {
            try {
                return get(route, new Proxy(Proxy.Type.HTTP, addresses.get(i)), path, headers);
            } catch (ConnectFailedException e) {
                if (i == addresses.size() - 1) {
                    throw e;
                }
            }
        }
    }

    /**
     * The proxy's addresses, the preferred family first (stable otherwise); one unresolved address when the name
     * does not resolve (the connection attempt then reports it) or there is no preference.
     */
    List<InetSocketAddress> proxyAddresses(Endpoint p) {
        if (preferIpFamily == 0) {
            return List.of(InetSocketAddress.createUnresolved(p.host(), p.port()));
        }
        InetAddress[] all;
        try {
            all = InetAddress.getAllByName(p.host());
        } catch (UnknownHostException e) {
            return List.of(InetSocketAddress.createUnresolved(p.host(), p.port()));
        }
        List<InetAddress> ordered = new ArrayList<>(Arrays.asList(all));
        ordered.sort(Comparator.comparing(a -> (a instanceof Inet6Address) != (preferIpFamily == 6)));
        List<InetSocketAddress> out = new ArrayList<>();
        ordered.forEach(a -> out.add(new InetSocketAddress(a, p.port())));
        return out;
    }

    private Response get(Route route, Proxy proxy, String path, Map<String, String> headers) throws IOException {
        Endpoint named = route.isDirect() || logicalServer == null ? route.server() : logicalServer;
        HttpURLConnection c = (HttpURLConnection) named.resolve(path).toURL().openConnection(proxy);
        c.setConnectTimeout(connectTimeoutMillis);
        c.setReadTimeout(readTimeoutMillis);
        // useCaches=false would make the JDK add "Cache-Control: no-cache" and "Pragma: no-cache" to every request,
        // turning each one into a hard refresh that bypasses Squid. No JDK ResponseCache is installed by default.
        c.setUseCaches(true);
        c.setInstanceFollowRedirects(followRedirects);
        headers.forEach(c::setRequestProperty);
        AttemptDeadline deadline = AttemptDeadline.start(timer(), attemptTimeout, c::disconnect);
        try {
            c.connect();
        } catch (IOException e) {
            c.disconnect();
            deadline.cancel();
            throw new ConnectFailedException("cannot connect to " + (route.isDirect() ? route.server() : route.proxy())
                    + ": " + e, e);
        }
        int status;
        InputStream body;
        try {
            status = c.getResponseCode();
            body = status >= 400 ? c.getErrorStream() : c.getInputStream();
        } catch (IOException | RuntimeException e) {
            c.disconnect();
            deadline.cancel();
            deadline.check(); // the deadline broke the connection: say so
            throw e;
        }
        return new UrlConnectionResponse(c, status, new BoundedBody(body == null ? InputStream.nullInputStream() : body,
                maxAnswerBytes, deadline), deadline);
    }

    private synchronized ScheduledExecutorService timer() {
        if (closed) {
            throw new IllegalStateException("the client is closed");
        }
        if (timer == null) {
            timer = new ScheduledThreadPoolExecutor(1, r -> {
                Thread t = new Thread(r, "outpost-attempt-deadline");
                t.setDaemon(true); // a client the application forgot to close does not keep the JVM running
                return t;
            });
            timer.setRemoveOnCancelPolicy(true); // an attempt that ended in time leaves nothing queued
        }
        return timer;
    }

    /** Stops the timer thread; a later request fails with IllegalStateException. */
    @Override
    public synchronized void close() {
        closed = true;
        if (timer != null) {
            timer.shutdownNow();
        }
    }

    private record UrlConnectionResponse(HttpURLConnection c, int status, InputStream body, AttemptDeadline deadline)
            implements Response {
        @Override
        public String header(String name) {
            return c.getHeaderField(name);
        }

        @Override
        public String target() {
            return c.getURL().getFile(); // the final URL once redirects were followed
        }

        @Override
        public long contentLength() {
            return c.getContentLengthLong();
        }

        @Override
        public void close() {
            deadline.cancel();
            try {
                body.close();
            } catch (IOException e) {
                c.disconnect();
            }
        }

        @Override
        public void abort() {
            deadline.cancel();
            c.disconnect();
        }
    }
}
