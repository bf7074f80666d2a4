package io.outpost.frontier.protocol;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/** The caching headers of a Frontier response: Cache-Control, Last-Modified and the request's If-Modified-Since. */
public final class CacheHeaders {
    /** The Last-Modified of an error, which no cache revalidates as current. */
    public static final String EPOCH = "Thu, 01 Jan 1970 00:00:00 GMT";

    private record HttpDate(long seconds, String text) {
    }

    private static volatile HttpDate lastHttpDate = new HttpDate(Long.MIN_VALUE, "");

    private CacheHeaders() {
    }

    /**
     * Cache-Control max-age, plus stale-if-error=N when the request carries max-stale=N and {@code staleIfError} is
     * on (upstream setAgeExpires).
     */
    public static void setAge(HttpServletRequest req, HttpServletResponse resp, long age, boolean staleIfError) {
        String cc = req.getHeader("Cache-Control");
        if (staleIfError && cc != null) {
            int i = cc.indexOf("max-stale");
            if (i >= 0) {
                int eq = cc.indexOf('=', i);
                if (eq >= 0) {
                    int end = cc.indexOf(',', eq);
                    String v = cc.substring(eq + 1, end < 0 ? cc.length() : end).trim();
                    if (!v.isEmpty() && v.length() <= 10 && v.chars().allMatch(c -> c >= '0' && c <= '9')) {
                        resp.setHeader("Cache-Control", "max-age=" + age + ", stale-if-error=" + v);
                        return;
                    }
                }
            }
        }
        resp.setHeader("Cache-Control", "max-age=" + age);
    }

    /** The request's If-Modified-Since in milliseconds; -1 when absent or not a date. */
    public static long ifModifiedSince(HttpServletRequest req) {
        try {
            return req.getDateHeader("If-Modified-Since");
        } catch (IllegalArgumentException e) {
            return -1;
        }
    }

    /** An RFC 1123 date in GMT, to the second. */
    public static String httpDate(long millis) {
        long seconds = Math.floorDiv(millis, 1000);
        HttpDate last = lastHttpDate;
        if (last.seconds() != seconds) { // tables change rarely: the same Last-Modified is formatted once
            last = new HttpDate(seconds, DateTimeFormatter.RFC_1123_DATE_TIME.format(
                    Instant.ofEpochSecond(seconds).atZone(ZoneOffset.UTC)).replace("+0000", "GMT")
                    .replaceFirst(", (\\d) ", ", 0$1 "));
            lastHttpDate = last;
        }
        return last.text();
    }
}
