package io.outpost.server.config;

import io.micrometer.core.instrument.MeterRegistry;
import io.outpost.frontier.FrontierConfig;
import io.outpost.frontier.FrontierContext;
import io.outpost.frontier.FrontierServlet;
import io.outpost.frontier.MicrometerFrontierMetrics;
import io.outpost.frontier.QueryCostLimits;
import io.outpost.store.IovStore;
import io.outpost.store.db.Database;
import io.outpost.store.db.DatabaseConfig;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * One Frontier servlet per configured context at {@code /<context>/Frontier/*}, each with its own read-only pool,
 * as several upstream Frontier servlets share one Tomcat.
 */
@Configuration(proxyBeanMethods = false)
public class FrontierConfiguration {
    private static final Logger log = LoggerFactory.getLogger(FrontierConfiguration.class);

    /** The contexts' databases, closed with the application. */
    public static final class FrontierDatabases implements AutoCloseable {
        private final List<Database> databases = new ArrayList<>();
        private final List<FrontierContext> contexts = new ArrayList<>();
        private final Map<String, QueryCostLimits> costLimits = new LinkedHashMap<>();

        public List<FrontierContext> contexts() {
            return contexts;
        }

        @Override
        public void close() {
            databases.forEach(Database::close);
        }
    }

    @Bean(destroyMethod = "close")
    public FrontierDatabases frontierDatabases(OutpostProperties props, IovStore store, MeterRegistry registry) {
        FrontierDatabases out = new FrontierDatabases();
        if (!props.frontier().enabled()) {
            return out;
        }
        Map<String, OutpostProperties.FrontierContext> contexts = new LinkedHashMap<>(props.frontier().contexts());
        if (contexts.isEmpty()) {
            contexts.put("Outpost", new OutpostProperties.FrontierContext(null, null, null, null, 8, Map.of()));
        }
        OutpostProperties.Database main = props.database();
        for (var e : contexts.entrySet()) {
            OutpostProperties.FrontierContext c = e.getValue();
            boolean own = c.url() == null;
            DatabaseConfig config = new DatabaseConfig(own ? main.url() : c.url(), own ? main.user() : c.user(),
                    own ? main.password() : c.password(), c.tablePrefix() != null ? c.tablePrefix() : main.tablePrefix(),
                    c.readPoolSize(), 1, main.connectionTimeout(), main.statementTimeout());
            Database db = Database.open(config);
            out.databases.add(db);
            out.contexts.add(new FrontierContext(e.getKey(), db, FrontierConfig.fromProperties(e.getKey(), c.settings()),
                    new MicrometerFrontierMetrics(registry, e.getKey())));
            out.costLimits.put(e.getKey(), QueryCostLimits.fromProperties(c.settings()));
            log.info("Frontier context /{}/Frontier serves {}", e.getKey(), config.maskedUrl());
        }
        return out;
    }

    /** Registers the servlets: their number is known only from the configuration. */
    @Bean
    public org.springframework.boot.web.servlet.ServletContextInitializer frontierServlets(FrontierDatabases dbs) {
        return servletContext -> {
            for (FrontierContext ctx : dbs.contexts()) {
                var reg = servletContext.addServlet("frontier-" + ctx.name(), new FrontierServlet(ctx,
                        dbs.costLimits.getOrDefault(ctx.name(), QueryCostLimits.defaults())));
                reg.addMapping(ctx.servletMapping());
                reg.setLoadOnStartup(1);
                reg.setAsyncSupported(false);
            }
        };
    }
}
