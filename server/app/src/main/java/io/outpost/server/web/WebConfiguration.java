package io.outpost.server.web;

import io.micrometer.core.instrument.MeterRegistry;
import io.outpost.server.cache.AnswerCache;
import io.outpost.server.cache.CachePolicy;
import io.outpost.server.cache.Catalog;
import io.outpost.server.config.OutpostProperties;
import io.outpost.server.query.QueryService;
import org.springframework.boot.tomcat.TomcatContextCustomizer;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Registers the native API servlet at /v1/*, its memory-hit valve, and the access log in front of everything. */
@Configuration(proxyBeanMethods = false)
public class WebConfiguration {

    @Bean
    public MemoryHits memoryHits(Catalog catalog, AnswerCache cache, MeterRegistry registry) {
        return new MemoryHits(catalog, cache, registry);
    }

    /** Memory hits of the native API are served before the servlet filter chain (MemoryHitValve). */
    @Bean
    public TomcatContextCustomizer memoryHitValve(MemoryHits hits) {
        return context -> context.getPipeline().addValve(new MemoryHitValve(hits, context.getPath() + "/v1/"));
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
