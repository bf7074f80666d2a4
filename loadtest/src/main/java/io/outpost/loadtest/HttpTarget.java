package io.outpost.loadtest;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ProxySelector;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Proxied and cached modes: HTTP GETs of the native binary API with the JDK client. Proxied: straight to Outpost,
 * every request a distinct but equivalent URL ({@link Query#distinct}) so the service's answer cache never answers.
 * Cached: through Squid as a forward proxy, with the canonical URLs, so repeated queries are cache hits.
 * Every answer is checked against the wire format's framing (magic, lengths, trailer row count).
 */
public final class HttpTarget implements Target {
    private final Mode mode;
    private final String base;
    private final HttpClient client;
    private final Duration timeout;
    private final AtomicLong distinct;

    /** {@code distinctStart} numbers the first distinct key (vary it between runs against a long-lived service). */
    public HttpTarget(Mode mode, String outpostUrl, InetSocketAddress squid, Duration timeout, long distinctStart) {
        if (mode == Mode.DIRECT) {
            throw new IllegalArgumentException("HTTP target for direct mode");
        }
        this.mode = mode;
        this.base = outpostUrl.endsWith("/") ? outpostUrl.substring(0, outpostUrl.length() - 1) : outpostUrl;
        HttpClient.Builder b = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).followRedirects(HttpClient.Redirect.NEVER)
                .executor(Executors.newVirtualThreadPerTaskExecutor());
        if (mode == Mode.CACHED) {
            if (squid == null) {
                throw new IllegalArgumentException("cached mode needs a Squid");
            }
            b.proxy(ProxySelector.of(squid));
        }
        this.client = b.build();
        this.timeout = timeout;
        this.distinct = new AtomicLong(distinctStart);
    }

    @Override
    public Mode mode() {
        return mode;
    }

    @Override
    public Outcome execute(Query q, long seq) throws IOException, InterruptedException {
        Query actual = mode == Mode.PROXIED ? q.distinct(distinct.getAndIncrement()) : q;
        HttpRequest req = HttpRequest.newBuilder(URI.create(base + actual.path())).timeout(timeout)
                .header("X-Outpost-Client", "outpost-loadtest/" + mode.label()).GET().build();
        HttpResponse<byte[]> resp = client.send(req, HttpResponse.BodyHandlers.ofByteArray());
        if (resp.statusCode() != 200) {
            throw new Failure.FailedRequest(Failure.ofStatus(resp.statusCode()),
                    "HTTP " + resp.statusCode() + " for " + actual.path());
        }
        long rows = checkFrame(resp.body());
        if (q.expectedRows() >= 0 && rows != q.expectedRows()) {
            throw new Failure.FailedRequest(Failure.WRONG_ROWS, actual.path() + ": " + rows + " rows, expected "
                    + q.expectedRows());
        }
        Boolean hit = null;
        var xc = resp.headers().firstValue("X-Cache");
        if (mode == Mode.CACHED && xc.isPresent()) {
            hit = xc.get().startsWith("HIT");
        }
        return new Outcome(resp.body().length, rows, hit);
    }

    /** Checks the framing of a native binary answer (docs/wire-format.md) and returns its row count. */
    static long checkFrame(byte[] a) {
        if (a.length < 32) {
            throw new Failure.FailedRequest(Failure.CORRUPT, "answer of " + a.length + " bytes is shorter than its framing");
        }
        ByteBuffer b = ByteBuffer.wrap(a);
        if (b.getInt(0) != 0x4F555450 || a[4] != 1) {
            throw new Failure.FailedRequest(Failure.CORRUPT, "bad header magic or version");
        }
        long bodyLen = b.getLong(8);
        if (bodyLen != a.length - 32L) {
            throw new Failure.FailedRequest(Failure.CORRUPT, "body_len " + bodyLen + " but " + (a.length - 32) + " bytes arrived");
        }
        if (b.getInt(a.length - 4) != 0x5054554F) {
            throw new Failure.FailedRequest(Failure.CORRUPT, "bad trailer magic");
        }
        return b.getLong(a.length - 16);
    }

    @Override
    public void close() {
        client.close();
    }
}
