package io.outpost.server.web;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * One access-log line per request (logger {@code outpost.access}): the client's address as the server resolved it
 * (the connection's peer, or the address a trusted proxy forwarded: {@code outpost.trusted-proxies}), who asked
 * (X-Outpost-Client, X-Frontier-Id or User-Agent), through which caches (Via, and what is left of X-Forwarded-For
 * once the trusted proxies' part is taken off), what, the status and the time taken.
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
            log(req.getRemoteAddr(), req.getMethod(), req.getRequestURI(), req.getQueryString(), resp.getStatus(),
                    startNanos, req::getHeader);
        }
    }

    /** The line for a request's parts; {@code header} reads the request's headers by name. */
    private static void log(String remoteAddr, String method, String path, String query, int status, long startNanos,
                           UnaryOperator<String> header) {
        if (access.isInfoEnabled()) {
            String client = first(header.apply("X-Outpost-Client"), header.apply("X-Frontier-Id"),
                    header.apply("User-Agent"));
            access.info("{} \"{} {}{}\" {} {}us client=\"{}\" via=\"{}\" xff=\"{}\"", remoteAddr, method, path,
                    query == null ? "" : "?" + query, status, (System.nanoTime() - startNanos) / 1000, client,
                    nz(header.apply("Via")), nz(header.apply("X-Forwarded-For")));
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
