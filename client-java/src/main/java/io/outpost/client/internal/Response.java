package io.outpost.client.internal;

import java.io.Closeable;
import java.io.InputStream;

/** One HTTP response as the failover logic sees it; the body stays open until closed or aborted. */
public interface Response extends Closeable {
    int status();

    /** A response header (case-insensitive name), or null. */
    String header(String name);

    /** The target (raw path and query) of the request that got this answer, after any redirect. */
    String target();

    /** Content-Length, or -1. */
    long contentLength();

    /** The body (the error body for 4xx/5xx); never null, maybe empty. */
    InputStream body();

    /** Closes the body so the connection can be reused (the body must have been read to its end). */
    @Override
    void close();

    /** Drops the connection: used when the body was not read to its end or cannot be trusted. */
    void abort();
}
