package io.outpost.server.web;

import io.micrometer.core.instrument.MeterRegistry;
import io.outpost.server.cache.AnswerCache;
import io.outpost.server.cache.CachePolicy;
import io.outpost.server.cache.Catalog;
import io.outpost.server.config.OutpostProperties;
import io.outpost.server.config.TrustedProxies;
import io.outpost.server.query.QueryService;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;

/** Registers the native API servlet at /v1/*, its memory-hit valve, and the access log in front of everything. */
@Configuration(proxyBeanMethods = false)
@org.springframework.boot.context.properties.EnableConfigurationProperties(ExportProperties.class)
public class WebConfiguration {

    @Bean
    public MemoryHits memoryHits(Catalog catalog, AnswerCache cache, io.outpost.server.signing.AnswerSigner signer,
                                 MeterRegistry registry) {
        return new MemoryHits(catalog, cache, signer, registry);
    }

    /**
     * Memory hits of the native API are served by MemoryHitValve in the engine's pipeline, right after Spring Boot's
     * own engine valves (the RemoteIpValve, which resolves the client's address), before host and context mapping and
     * the servlet filter chain. In the context's pipeline instead it served fewer small hits at 20 connections in two
     * runs side by side (0.67 against 0.74 of nginx's rate, 2026-11-26; MemoryHitBenchmarks, docs/decisions.md).
     */
    @Bean
    public WebServerFactoryCustomizer<TomcatServletWebServerFactory> memoryHitValve(MemoryHits hits,
            @Value("${server.servlet.context-path:}") String contextPath) {
        return new EngineValve(new MemoryHitValve(hits, contextPath + "/v1/"));
    }

    /** Adds the valve to the engine after Spring Boot's own engine valves (the RemoteIpValve). */
    private record EngineValve(MemoryHitValve valve)
            implements WebServerFactoryCustomizer<TomcatServletWebServerFactory>, Ordered {
        @Override
        public void customize(TomcatServletWebServerFactory factory) {
            factory.addEngineValves(valve);
        }

        @Override
        public int getOrder() {
            return Ordered.LOWEST_PRECEDENCE;
        }
    }

    /**
     * Tomcat refuses a %2F in a path with its own HTML 400 before any servlet runs; kept encoded instead (never
     * taken as a separator), it reaches the native API, which redirects it to the canonical URL, and the write API,
     * which decodes its node paths.
     */
    @Bean
    public org.springframework.boot.tomcat.TomcatConnectorCustomizer encodedSlashesReachTheApplication() {
        return connector -> connector.setEncodedSolidusHandling(
                org.apache.tomcat.util.buf.EncodedSolidusHandling.PASS_THROUGH.getValue());
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

    /** The actuator's details for {@code outpost.management.addresses} only (loopback by default), health for all. */
    @Bean
    public FilterRegistrationBean<ManagementAccess> managementAccess(OutpostProperties props,
            @Value("${server.servlet.context-path:}") String contextPath,
            @Value("${management.endpoints.web.base-path:/actuator}") String basePath) {
        TrustedProxies managers = new TrustedProxies(props.management().addresses());
        FilterRegistrationBean<ManagementAccess> bean = new FilterRegistrationBean<>(
                new ManagementAccess(contextPath, basePath, managers));
        bean.setOrder(Integer.MIN_VALUE + 1); // after the access log, so refusals are logged
        return bean;
    }

    /** Inside the access log and the management filter, so that its 500s are logged and apply to every path. */
    @Bean
    public FilterRegistrationBean<InternalErrorAnswers> internalErrorAnswers() {
        FilterRegistrationBean<InternalErrorAnswers> bean = new FilterRegistrationBean<>(new InternalErrorAnswers());
        bean.setOrder(Integer.MIN_VALUE + 2);
        return bean;
    }

    @Bean
    public FilterRegistrationBean<AccessLogFilter> accessLog() {
        FilterRegistrationBean<AccessLogFilter> bean = new FilterRegistrationBean<>(new AccessLogFilter());
        bean.setOrder(Integer.MIN_VALUE);
        return bean;
    }
}
