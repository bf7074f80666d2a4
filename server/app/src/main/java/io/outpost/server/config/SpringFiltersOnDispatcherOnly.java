package io.outpost.server.config;

import org.apache.catalina.Context;
import org.apache.catalina.Lifecycle;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.tomcat.TomcatContextCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Spring's own servlet filters (character encoding, form content, request context, observation) serve Spring MVC
 * (actuator, API documentation). The native API and the Frontier servlets read nothing they prepare, yet every
 * cache hit went through them. Once Tomcat has started, each filter of a Spring class mapped to {@code /*} is mapped
 * to the dispatcher servlet instead; Outpost's own filters (the access log) stay on every request.
 * {@code outpost.web.spring-filters-everywhere=true} keeps Spring's mapping.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(name = "outpost.web.spring-filters-everywhere", havingValue = "false", matchIfMissing = true)
public class SpringFiltersOnDispatcherOnly {
    static final String DISPATCHER_SERVLET = "dispatcherServlet";

    @Bean
    public TomcatContextCustomizer springFiltersForMvcOnly() {
        return context -> context.addLifecycleListener(event -> {
            if (Lifecycle.AFTER_START_EVENT.equals(event.getType())) {
                scope(context);
            }
        });
    }

    /** Replaces the {@code /*} mapping of every Spring filter by a mapping to the dispatcher servlet. */
    static void scope(Context context) {
        for (FilterMap map : context.findFilterMaps()) {
            FilterDef def = context.findFilterDef(map.getFilterName());
            String type = def == null ? null
                    : def.getFilterClass() != null ? def.getFilterClass()
                    : def.getFilter() != null ? def.getFilter().getClass().getName() : null;
            boolean everything = map.getURLPatterns().length == 1 && "/*".equals(map.getURLPatterns()[0])
                    && map.getServletNames().length == 0;
            if (type == null || !type.startsWith("org.springframework.") || !everything) {
                continue;
            }
            FilterMap scoped = new FilterMap();
            scoped.setFilterName(map.getFilterName());
            scoped.addServletName(DISPATCHER_SERVLET);
            for (String dispatcher : map.getDispatcherNames()) {
                scoped.setDispatcher(dispatcher);
            }
            context.removeFilterMap(map);
            context.addFilterMap(scoped); // kept in their order, after the URL-mapped filters, as Tomcat chains them
        }
    }
}
