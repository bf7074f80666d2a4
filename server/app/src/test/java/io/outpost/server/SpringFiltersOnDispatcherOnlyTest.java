package io.outpost.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.server.support.RunningService;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.catalina.Context;
import org.apache.tomcat.util.descriptor.web.FilterMap;
import org.junit.jupiter.api.Test;
import org.springframework.boot.tomcat.TomcatWebServer;
import org.springframework.boot.web.server.context.WebServerApplicationContext;

/**
 * Spring's servlet filters run for Spring MVC only (the dispatcher servlet); the native API and the Frontier
 * servlets are reached through Outpost's access log alone, and both still answer.
 */
class SpringFiltersOnDispatcherOnlyTest {

    @Test
    void springFiltersAreMappedToTheDispatcherServletOnly() throws Exception {
        try (RunningService svc = RunningService.startSqliteDemo()) {
            List<String> springFilters = new ArrayList<>();
            List<String> everywhere = new ArrayList<>();
            for (FilterMap m : context(svc).findFilterMaps()) {
                String type = context(svc).findFilterDef(m.getFilterName()).getFilter().getClass().getName();
                if (type.startsWith("org.springframework.")) {
                    springFilters.add(m.getFilterName());
                    assertThat(m.getServletNames()).as(m.getFilterName()).containsExactly("dispatcherServlet");
                    assertThat(m.getURLPatterns()).as(m.getFilterName()).isEmpty();
                } else if (Arrays.asList(m.getURLPatterns()).contains("/*")) {
                    everywhere.add(type);
                }
            }
            assertThat(springFilters).isNotEmpty();
            assertThat(everywhere).contains("io.outpost.server.web.AccessLogFilter");
            // Spring MVC, the native API and Frontier still answer
            assertThat(svc.get("/actuator/health").statusCode()).isEqualTo(200);
            assertThat(svc.get("/v1/json/channels/DEMO/DCS/HV").statusCode()).isEqualTo(200);
        }
    }

    @Test
    void thePropertyKeepsSpringsMapping() throws Exception {
        try (RunningService svc = RunningService.startSqliteDemo("--outpost.web.spring-filters-everywhere=true")) {
            boolean anyOnEverything = Arrays.stream(context(svc).findFilterMaps())
                    .filter(m -> context(svc).findFilterDef(m.getFilterName()).getFilter().getClass().getName()
                            .startsWith("org.springframework."))
                    .anyMatch(m -> Arrays.asList(m.getURLPatterns()).contains("/*"));
            assertThat(anyOnEverything).isTrue();
        }
    }

    private static Context context(RunningService svc) {
        TomcatWebServer server = (TomcatWebServer) ((WebServerApplicationContext) svc.context()).getWebServer();
        return (Context) server.getTomcat().getHost().findChildren()[0];
    }
}
