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
 * once the trusted proxies' part is taken off), what, the status and the time taken. Every client-supplied value
 * is escaped ({@link #escape}): a header cannot forge fields or lines.
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

    /**
     * The line for a request's parts; {@code header} reads the request's headers by name. Built in one
     * StringBuilder: SLF4J's formatting of nine arguments was a quarter of a logged memory hit's log cost.
     */
    private static void log(String remoteAddr, String method, String path, String query, int status, long startNanos,
                           UnaryOperator<String> header) {
        if (access.isInfoEnabled()) {
            String client = first(header.apply("X-Outpost-Client"), header.apply("X-Frontier-Id"),
                    header.apply("User-Agent"));
            StringBuilder b = new StringBuilder(160 + path.length());
            b.append(remoteAddr).append(" \"").append(escape(method)).append(' ').append(escape(path));
            if (query != null) {
                b.append('?').append(escape(query));
            }
            b.append("\" ").append(status).append(' ').append((System.nanoTime() - startNanos) / 1000)
                    .append("us client=\"").append(escape(client)).append("\" via=\"")
                    .append(escape(nz(header.apply("Via")))).append("\" xff=\"")
                    .append(escape(nz(header.apply("X-Forwarded-For")))).append('"');
            access.info(b.toString());
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

    /**
     * A client-supplied value as it may appear inside a quoted field: quotes and backslashes escaped, control
     * characters as {@code \xHH}, so that no value can end its field or its line and forge others.
     */
    static String escape(String s) {
        StringBuilder b = null;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean control = c < 0x20 || (c >= 0x7f && c < 0xa0);
            if (control || c == '"' || c == '\\') {
                if (b == null) {
                    b = new StringBuilder(s.length() + 16).append(s, 0, i);
                }
                if (control) {
                    b.append(String.format("\\x%02x", (int) c));
                } else {
                    b.append('\\').append(c);
                }
            } else if (b != null) {
                b.append(c);
            }
        }
        return b == null ? s : b.toString();
    }

    private static String nz(String s) {
        return s == null ? "-" : s;
    }
}
