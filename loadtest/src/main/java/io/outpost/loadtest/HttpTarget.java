package io.outpost.loadtest;

import io.outpost.wire.AnswerDecoder;
import io.outpost.wire.CorruptAnswerException;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.InetSocketAddress;
import java.net.Proxy;
import java.net.URI;
import java.net.URL;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Proxied and cached modes: HTTP GETs of the native binary API over the same transport as the Outpost Java client
 * ({@link HttpURLConnection} with the JDK's keep-alive pool; the blocking stack costs the generator less CPU per
 * request than {@code java.net.http.HttpClient}). Proxied: straight to Outpost, every request a distinct but
 * equivalent URL ({@link Query#distinct}) with {@code Cache-Control: no-store}, so the service's answer cache neither
 * answers nor keeps it. Cached: through Squid as a
 * forward proxy, with the canonical URLs, so repeated queries are cache hits. Every answer is decoded row by row
 * with the Java client's decoder, as a job would, which also checks its framing, row count and CRC-32; direct mode
 * likewise reads every value from JDBC.
 */
public final class HttpTarget implements Target {
    private final Mode mode;
    private final String base;
    private final Proxy proxy;
    private final int timeoutMillis;
    private final AtomicLong distinct;

    /**
     * {@code distinct} numbers the distinct keys of proxied mode; share one counter between all targets of a service
     * so that no two of them ask the same URL.
     */
    public HttpTarget(Mode mode, String outpostUrl, InetSocketAddress squid, Duration timeout, AtomicLong distinct) {
        if (mode == Mode.DIRECT) {
            throw new IllegalArgumentException("HTTP target for direct mode");
        }
        if (mode == Mode.CACHED && squid == null) {
            throw new IllegalArgumentException("cached mode needs a Squid");
        }
        this.mode = mode;
        this.base = outpostUrl.endsWith("/") ? outpostUrl.substring(0, outpostUrl.length() - 1) : outpostUrl;
        this.proxy = mode == Mode.CACHED ? new Proxy(Proxy.Type.HTTP, squid) : Proxy.NO_PROXY;
        this.timeoutMillis = (int) Math.min(Integer.MAX_VALUE, timeout.toMillis());
        this.distinct = distinct;
    }

    @Override
    public Mode mode() {
        return mode;
    }

    @Override
    public Outcome execute(Query q, long seq) throws IOException {
        Query actual = mode == Mode.PROXIED ? q.distinct(distinct.getAndIncrement()) : q;
        URL url = URI.create(base + actual.path()).toURL();
        HttpURLConnection c = (HttpURLConnection) url.openConnection(proxy);
        c.setConnectTimeout(Math.min(timeoutMillis, 5000));
        c.setReadTimeout(timeoutMillis);
        c.setInstanceFollowRedirects(false);
        c.setRequestProperty("X-Outpost-Client", "outpost-loadtest/" + mode.label());
        if (mode == Mode.PROXIED) {
            // caches bypassed: the service neither finds (distinct URL) nor keeps (no-store) the answer
            c.setRequestProperty("Cache-Control", "no-store");
        }
        int status = c.getResponseCode();
        if (status != 200) {
            InputStream err = c.getErrorStream();
            if (err != null) {
                err.readAllBytes(); // drains the body so the connection goes back to the keep-alive pool
                err.close();
            }
            throw new Failure.FailedRequest(Failure.ofStatus(status), "HTTP " + status + " for " + actual.path());
        }
        long length = c.getContentLengthLong();
        long rows;
        try (InputStream in = c.getInputStream()) {
            rows = decodeAll(in, length);
        } catch (CorruptAnswerException e) {
            c.disconnect();
            throw new Failure.FailedRequest(Failure.CORRUPT, actual.path() + ": " + e.getMessage());
        }
        if (q.expectedRows() >= 0 && rows != q.expectedRows()) {
            throw new Failure.FailedRequest(Failure.WRONG_ROWS, actual.path() + ": " + rows + " rows, expected "
                    + q.expectedRows());
        }
        Boolean hit = null;
        String xc = c.getHeaderField("X-Cache");
        if (mode == Mode.CACHED && xc != null) {
            hit = xc.startsWith("HIT");
        }
        return new Outcome(length, rows, hit);
    }

    /** Decodes every row of a native binary answer (docs/wire-format.md), checking it whole; returns the row count. */
    static long decodeAll(InputStream in, long contentLength) throws IOException {
        try (AnswerDecoder d = new AnswerDecoder(in, contentLength)) {
            d.readHeader();
            while (d.nextRow() != null) {
                // every value is materialised, as direct mode materialises every JDBC value
            }
            return d.rowsRead();
        }
    }

    @Override
    public void close() {
        // the JDK's keep-alive pool closes idle connections by itself
    }
}
