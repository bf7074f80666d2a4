package io.outpost.server.web;

import io.micrometer.core.instrument.MeterRegistry;
import io.outpost.server.cache.AnswerCache;
import io.outpost.server.cache.CachePolicy;
import io.outpost.server.cache.Catalog;
import io.outpost.server.config.OutpostProperties;
import io.outpost.server.query.QueryService;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.tomcat.TomcatContextCustomizer;
import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;

/** Registers the native API servlet at /v1/*, its memory-hit valve, and the access log in front of everything. */
@Configuration(proxyBeanMethods = false)
public class WebConfiguration {

    @Bean
    public MemoryHits memoryHits(Catalog catalog, AnswerCache cache, MeterRegistry registry) {
        return new MemoryHits(catalog, cache, registry);
    }

    /**
     * Memory hits of the native API are served before the servlet filter chain (MemoryHitValve), by default in the
     * context's pipeline; {@code outpost.memory-hits.valve=engine} puts the valve in the engine's, before the host
     * and context valves (after the RemoteIpValve), for MemoryHitBenchmarks to weigh the two side by side.
     */
    @Bean
    public TomcatContextCustomizer memoryHitValve(MemoryHits hits,
                                                  @Value("${outpost.memory-hits.valve:context}") String where) {
        return context -> {
            if (where.equals("context")) {
                context.getPipeline().addValve(new MemoryHitValve(hits, context.getPath() + "/v1/"));
            }
        };
    }

    @Bean
    public WebServerFactoryCustomizer<TomcatServletWebServerFactory> memoryHitEngineValve(MemoryHits hits,
            @Value("${outpost.memory-hits.valve:context}") String where,
            @Value("${server.servlet.context-path:}") String contextPath) {
        if (!where.equals("context") && !where.equals("engine")) {
            throw new IllegalArgumentException("outpost.memory-hits.valve must be context or engine, not '" + where + "'");
        }
        return new EngineValve(where.equals("engine") ? new MemoryHitValve(hits, contextPath + "/v1/") : null);
    }

    /** Adds the valve (if any) to the engine after Spring Boot's own engine valves (the RemoteIpValve). */
    private record EngineValve(MemoryHitValve valve)
            implements WebServerFactoryCustomizer<TomcatServletWebServerFactory>, Ordered {
        @Override
        public void customize(TomcatServletWebServerFactory factory) {
            if (valve != null) {
                factory.addEngineValves(valve);
            }
        }

        @Override
        public int getOrder() {
            return Ordered.LOWEST_PRECEDENCE;
        }
    }

    @Bean
    public ServletRegistrationBean<NativeApiServlet> nativeApi(Catalog catalog, AnswerCache cache, MemoryHits hits,
                                                               QueryService service, CachePolicy policy,
                                                               OutpostProperties props, MeterRegistry registry) {
        ServletRegistrationBean<NativeApiServlet> bean = new ServletRegistrationBean<>(
                new NativeApiServlet(catalog, cache, hits, service, policy, props, registry), "/v1/*");
        bean.setName("native-api");
        bean.setLoadOnStartup(1);
        return bean;
    }

    @Bean
    public FilterRegistrationBean<AccessLogFilter> accessLog() {
        FilterRegistrationBean<AccessLogFilter> bean = new FilterRegistrationBean<>(new AccessLogFilter());
        bean.setOrder(Integer.MIN_VALUE);
        return bean;
    }
}
