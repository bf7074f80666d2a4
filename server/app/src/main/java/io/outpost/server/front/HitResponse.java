package io.outpost.server.front;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.outpost.server.cache.Answer;
import io.outpost.server.web.MemoryHits;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * The response for a memory hit: the same status, headers and body the servlet path writes
 * ({@code MemoryHits.serve}), plus Date and connection handling as Tomcat adds them, with header names spelled as
 * Tomcat spells them (clients must not care, but people reading traces do).
 */
final class HitResponse {
    // Header names and values come from the answer cache, which built them from validated data.
    private static final DefaultHttpHeadersFactory HEADERS = DefaultHttpHeadersFactory.headersFactory()
            .withValidation(false);
    private static final DefaultHttpHeadersFactory TRAILERS = DefaultHttpHeadersFactory.trailersFactory()
            .withValidation(false);
    // RFC 9110's IMF-fixdate; DateTimeFormatter.RFC_1123_DATE_TIME would drop the day's leading zero.
    private static final DateTimeFormatter IMF_FIXDATE = DateTimeFormatter
            .ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US).withZone(ZoneOffset.UTC);
    private static volatile DateHeader date = new DateHeader(0, "");

    private record DateHeader(long second, String value) {
    }

    private HitResponse() {
    }

    static FullHttpResponse of(MemoryHits.Hit hit, boolean keepAlive, HttpVersion requestVersion) {
        Answer a = hit.answer();
        Answer.Headers h = a.headers();
        FullHttpResponse r = hit.notModified()
                ? new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.NOT_MODIFIED,
                        Unpooled.EMPTY_BUFFER, HEADERS, TRAILERS)
                : new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                        Unpooled.wrappedBuffer(a.body()), HEADERS, TRAILERS);
        HttpHeaders out = r.headers();
        out.set("Date", now());
        out.set("Cache-Control", hit.cacheControl());
        out.set("ETag", h.etag());
        out.set("Last-Modified", h.lastModified());
        if (!hit.notModified()) {
            out.set("Content-Type", a.contentType());
            out.set("X-Outpost-Rows", h.rows());
            if (h.validSince() != null) {
                out.set("X-Outpost-Valid-Since", h.validSince());
                out.set("X-Outpost-Valid-Until", h.validUntil());
            }
            out.setInt("Content-Length", a.body().length);
        }
        if (!keepAlive) {
            out.set("Connection", HttpHeaderValues.CLOSE);
        } else if (requestVersion.equals(HttpVersion.HTTP_1_0)) {
            out.set("Connection", HttpHeaderValues.KEEP_ALIVE);
        }
        return r;
    }

    /** The Date header, formatted once per second. */
    private static String now() {
        long second = System.currentTimeMillis() / 1000;
        DateHeader d = date;
        if (d.second() != second) {
            d = new DateHeader(second, IMF_FIXDATE.format(Instant.ofEpochSecond(second)));
            date = d;
        }
        return d.value();
    }
}
