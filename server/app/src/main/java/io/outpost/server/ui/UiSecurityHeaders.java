package io.outpost.server.ui;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Security headers of the browser pages. The policy allows scripts, styles and fetches from this origin only and
 * no inline script or style at all, so text from the database (descriptions, payload strings) can never run even if
 * a page forgot to escape it; the pages write such text with textContent only.
 */
public class UiSecurityHeaders extends OncePerRequestFilter {
    static final String POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
            + "img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

    @Override
    protected void doFilterInternal(HttpServletRequest req, HttpServletResponse resp, FilterChain chain)
            throws ServletException, IOException {
        resp.setHeader("Content-Security-Policy", POLICY);
        resp.setHeader("X-Content-Type-Options", "nosniff");
        resp.setHeader("Referrer-Policy", "same-origin");
        chain.doFilter(req, resp);
    }
}
