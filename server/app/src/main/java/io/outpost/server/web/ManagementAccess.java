package io.outpost.server.web;

import io.outpost.server.config.TrustedProxies;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.InetAddress;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.util.ContentCachingResponseWrapper;
import tools.jackson.databind.json.JsonMapper;

/**
 * What an anonymous client sees of the actuator: {@code /actuator/health} as {@code {"status":"UP"}} (or DOWN) and
 * nothing else. Health details, metrics, Prometheus and info answer only requests
 * sent straight (no Via, X-Forwarded-For or Forwarded header: not through a cache) from
 * {@code outpost.management.addresses} (loopback by default); to anyone else they do not exist (404). A direct
 * {@code GET /error} is a 404 too, not the error page's 500.
 * <p>
 * Decided on the path as Tomcat maps it: decoded ({@code /%61ctuator}), without path parameters
 * ({@code /actuator;x=1}), dot segments and doubled slashes resolved; the raw request URI would let such spellings
 * through to the actuator. The actuator answers its plain spelling only: any other spelling of an actuator path is
 * 404 for everyone (Spring matches the raw URI, so {@code /actuator//health} would reach the error page instead).
 */
public final class ManagementAccess extends OncePerRequestFilter {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private final String health;
    private final String base;
    private final String error;
    private final TrustedProxies managers;

    /**
     * @param contextPath the servlet context path ("" at the root)
     * @param basePath    the actuator's base path ({@code management.endpoints.web.base-path})
     * @param managers    addresses (and CIDR blocks) that may see everything
     */
    public ManagementAccess(String contextPath, String basePath, TrustedProxies managers) {
        this.base = contextPath + basePath;
        this.health = base + "/health";
        this.error = contextPath + "/error";
        this.managers = managers;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest req, HttpServletResponse resp, FilterChain chain)
            throws ServletException, IOException {
        String path = mappedPath(req);
        boolean actuator = path.equals(base) || path.startsWith(base + "/");
        if (path.equals(error) && req.getDispatcherType() == DispatcherType.REQUEST
                || actuator && !path.equals(health) && !isManager(req)
                || actuator && req.getDispatcherType() == DispatcherType.REQUEST && !path.equals(req.getRequestURI())) {
            Problems.write(resp, 404, "Not Found", "no such resource", path, "no-store");
            return;
        }
        if (path.equals(health) && !isManager(req)) {
            statusOnly(req, resp, chain);
            return;
        }
        chain.doFilter(req, resp);
    }

    /**
     * The path the request is mapped by, with the context path: Tomcat's decoded and normalised URI, as the servlet
     * path and path info give it (the raw URI when Tomcat gave neither).
     */
    static String mappedPath(HttpServletRequest req) {
        String servletPath = req.getServletPath();
        String pathInfo = req.getPathInfo();
        if ((servletPath == null || servletPath.isEmpty()) && pathInfo == null) {
            return req.getRequestURI();
        }
        return req.getContextPath() + (servletPath == null ? "" : servletPath) + (pathInfo == null ? "" : pathInfo);
    }

    /** The health answer with its {@code status} alone (no components, groups, disk sizes or paths). */
    private static void statusOnly(HttpServletRequest req, HttpServletResponse resp, FilterChain chain)
            throws ServletException, IOException {
        ContentCachingResponseWrapper full = new ContentCachingResponseWrapper(resp);
        chain.doFilter(req, full);
        String status;
        try {
            status = JSON.readTree(full.getContentAsByteArray()).path("status").asString("UNKNOWN");
        } catch (RuntimeException unreadable) {
            status = "UNKNOWN";
        }
        byte[] body = JSON.writeValueAsBytes(java.util.Map.of("status", status));
        resp.resetBuffer();
        resp.setContentType("application/json");
        resp.setHeader("Cache-Control", "no-store");
        resp.setContentLength(body.length);
        resp.getOutputStream().write(body);
    }

    private boolean isManager(HttpServletRequest req) {
        if (req.getHeader("Via") != null || req.getHeader("X-Forwarded-For") != null
                || req.getHeader("Forwarded") != null) {
            return false;
        }
        try {
            // Tomcat's remote address is a literal, so this looks nothing up
            return managers.contains(InetAddress.getByName(req.getRemoteAddr()));
        } catch (java.net.UnknownHostException notAnAddress) {
            return false;
        }
    }
}
