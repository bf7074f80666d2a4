package io.outpost.server.web;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * One access-log line per request (logger {@code outpost.access}): who asked (X-Outpost-Client, X-Frontier-Id or
 * User-Agent), through which caches (Via, X-Forwarded-For), what, the status and the time taken.
 */
public class AccessLogFilter extends OncePerRequestFilter {
    private static final Logger access = LoggerFactory.getLogger("outpost.access");

    @Override
    protected void doFilterInternal(HttpServletRequest req, HttpServletResponse resp, FilterChain chain)
            throws ServletException, IOException {
        long start = System.nanoTime();
        try {
            chain.doFilter(req, resp);
        } finally {
            log(req, resp, start);
        }
    }

    /** Logs one request that began at {@code startNanos}, if the access log is on. */
    static void log(HttpServletRequest req, HttpServletResponse resp, long startNanos) {
        if (access.isInfoEnabled()) {
            String client = first(req.getHeader("X-Outpost-Client"), req.getHeader("X-Frontier-Id"),
                    req.getHeader("User-Agent"));
            access.info("{} \"{} {}{}\" {} {}us client=\"{}\" via=\"{}\" xff=\"{}\"", req.getRemoteAddr(),
                    req.getMethod(), req.getRequestURI(), req.getQueryString() == null ? "" : "?" + req.getQueryString(),
                    resp.getStatus(), (System.nanoTime() - startNanos) / 1000, client, nz(req.getHeader("Via")),
                    nz(req.getHeader("X-Forwarded-For")));
        }
    }

    private static String first(String... values) {
        for (String v : values) {
            if (v != null) {
                return v;
            }
        }
        return "-";
    }

    private static String nz(String s) {
        return s == null ? "-" : s;
    }
}
