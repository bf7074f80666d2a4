package io.outpost.integration;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.filter.OncePerRequestFilter;

/** Every request that reached one Outpost instance: what Squid let through. */
public final class RequestLog {
    /** One request as Outpost saw it. */
    public record Entry(String uri, int status, String via, String forwardedFor, String ifModifiedSince, long nanos) {
    }

    private static final String RECORDED_BY_FILTER = RequestLog.class.getName() + ".recorded";

    private final ConcurrentLinkedQueue<Entry> entries = new ConcurrentLinkedQueue<>();

    public List<Entry> forUri(String uri) {
        return entries.stream().filter(e -> e.uri().equals(uri)).toList();
    }

    public long count(String uri) {
        return forUri(uri).size();
    }

    public long count(String uri, int status) {
        return forUri(uri).stream().filter(e -> e.status() == status).count();
    }

    public List<Entry> all() {
        return List.copyOf(entries);
    }

    /** Added as an extra source of the Spring application: a filter in front of everything, like the access log. */
    @Configuration(proxyBeanMethods = false)
    public static class Config {
        @Bean
        public RequestLog requestLog() {
            return new RequestLog();
        }

        @Bean
        public FilterRegistrationBean<OncePerRequestFilter> requestLogFilter(RequestLog log) {
            OncePerRequestFilter filter = new OncePerRequestFilter() {
                @Override
                protected void doFilterInternal(HttpServletRequest req, HttpServletResponse resp, FilterChain chain)
                        throws ServletException, IOException {
                    // Recorded when the servlet starts its body (status and headers are final then), so the entry
                    // exists before the client can have the whole answer; bodiless answers are recorded at the end.
                    java.util.concurrent.atomic.AtomicBoolean recorded = new java.util.concurrent.atomic.AtomicBoolean();
                    req.setAttribute(RECORDED_BY_FILTER, Boolean.TRUE);
                    Runnable record = () -> {
                        if (recorded.compareAndSet(false, true)) {
                            log.entries.add(new Entry(req.getRequestURI(), resp.getStatus(), req.getHeader("Via"),
                                    req.getHeader("X-Forwarded-For"), req.getHeader("If-Modified-Since"), System.nanoTime()));
                        }
                    };
                    jakarta.servlet.http.HttpServletResponseWrapper wrapped = new jakarta.servlet.http.HttpServletResponseWrapper(resp) {
                        @Override
                        public jakarta.servlet.ServletOutputStream getOutputStream() throws IOException {
                            record.run();
                            return super.getOutputStream();
                        }

                        @Override
                        public java.io.PrintWriter getWriter() throws IOException {
                            record.run();
                            return super.getWriter();
                        }

                        @Override
                        public void flushBuffer() throws IOException {
                            record.run();
                            super.flushBuffer();
                        }
                    };
                    try {
                        chain.doFilter(req, wrapped);
                    } finally {
                        record.run();
                    }
                }
            };
            FilterRegistrationBean<OncePerRequestFilter> bean = new FilterRegistrationBean<>(filter);
            bean.setOrder(Integer.MIN_VALUE + 1);
            return bean;
        }

        /**
         * Memory hits are answered by a valve in the engine's pipeline, before any filter: this valve, first in that
         * pipeline, records the requests the filter never saw, once they are answered (so possibly after the client
         * has the answer).
         */
        @Bean
        public org.springframework.boot.web.server.WebServerFactoryCustomizer<
                org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory> requestLogValve(RequestLog log) {
            return new FirstEngineValve(new org.apache.catalina.valves.ValveBase(true) {
                @Override
                public void invoke(org.apache.catalina.connector.Request req, org.apache.catalina.connector.Response resp)
                        throws IOException, ServletException {
                    try {
                        getNext().invoke(req, resp);
                    } finally {
                        if (req.getAttribute(RECORDED_BY_FILTER) == null) {
                            log.entries.add(new Entry(req.getRequestURI(), resp.getStatus(), req.getHeader("Via"),
                                    req.getHeader("X-Forwarded-For"), req.getHeader("If-Modified-Since"), System.nanoTime()));
                        }
                    }
                }
            });
        }

        /** Adds its valve to the engine before every other customizer adds one. */
        private record FirstEngineValve(org.apache.catalina.Valve valve) implements
                org.springframework.boot.web.server.WebServerFactoryCustomizer<
                        org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory>,
                org.springframework.core.Ordered {
            @Override
            public void customize(org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory factory) {
                factory.addEngineValves(valve);
            }

            @Override
            public int getOrder() {
                return org.springframework.core.Ordered.HIGHEST_PRECEDENCE;
            }
        }
    }
}
