package io.outpost.server.web;

import jakarta.servlet.ServletException;
import java.io.IOException;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.valves.ValveBase;

/**
 * Serves native-API GETs whose answer is current in memory before Tomcat builds the servlet filter chain: on 2
 * cores the filters (request context, Spring Security's chain, access-log wrapper) cost about a tenth of a 1 KB
 * hit's Tomcat CPU (docs/benchmarks.md). Everything else goes on to the servlet, which repeats the same memory lookup.
 * Filters never see these hits: fine while reads need no authentication (Spring Security guards /write/** only).
 */
public final class MemoryHitValve extends ValveBase {
    private final MemoryHits hits;
    private final String prefix;

    public MemoryHitValve(MemoryHits hits, String prefix) {
        super(true);
        this.hits = hits;
        this.prefix = prefix;
    }

    @Override
    public void invoke(Request request, Response response) throws IOException, ServletException {
        long start = System.nanoTime();
        String uri = request.getRequestURI();
        // no URI: Tomcat could not read the request target (a raw NUL, backslash or non-ASCII byte) and answers 400
        if (uri != null && !response.isError() && "GET".equals(request.getMethod()) && uri.startsWith(prefix) && hits.tryServe(uri, request, response)) {
            AccessLogFilter.log(request, response, start);
            return;
        }
        getNext().invoke(request, response);
    }
}
