package io.outpost.server.config;

import io.micrometer.core.instrument.MeterRegistry;
import io.outpost.frontier.protocol.FrontierConfig;
import io.outpost.frontier.FrontierContext;
import io.outpost.frontier.FrontierRuntime;
import io.outpost.frontier.FrontierServlet;
import io.outpost.frontier.MicrometerFrontierMetrics;
import io.outpost.frontier.cost.QueryCostLimits;
import io.outpost.frontier.sql.TablePolicy;
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
        private final Map<String, Long> answerCacheBytes = new LinkedHashMap<>();
        /** Contexts serving the service's own database and tables, whose folders' held rows can answer them. */
        private final java.util.Set<String> onServiceTables = new java.util.HashSet<>();

        public List<FrontierContext> contexts() {
            return contexts;
        }

        /** The context's answer cache budget (settings key {@code AnswerCacheBytes}; 0 keeps no answers). */
        public long answerCacheBytes(String context) {
            return answerCacheBytes.getOrDefault(context, io.outpost.frontier.answers.FrontierAnswers.DEFAULT_MAX_BYTES);
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
            // the tables (and columns) the context's SQL may read: Profile, Tables, Columns (COOL's by default)
            TablePolicy tables = TablePolicy.fromProperties(c.settings(), db.prefix());
            out.contexts.add(new FrontierContext(e.getKey(), db, FrontierConfig.fromProperties(e.getKey(), c.settings()),
                    new MicrometerFrontierMetrics(registry, e.getKey()), tables));
            out.costLimits.put(e.getKey(), QueryCostLimits.fromProperties(c.settings()));
            if (own && db.prefix().equals(store.database().prefix())) {
                out.onServiceTables.add(e.getKey());
            }
            String cacheBytes = c.settings().get("AnswerCacheBytes");
            if (cacheBytes != null && !cacheBytes.isBlank()) {
                out.answerCacheBytes.put(e.getKey(), org.springframework.util.unit.DataSize.parse(cacheBytes.trim()).toBytes());
            }
            log.info("Frontier context /{}/Frontier serves {} ({})", e.getKey(), config.maskedUrl(), tables);
        }
        return out;
    }

    /** The keepalive timer and compression pool all Frontier servlets share, stopped with the application. */
    @Bean(destroyMethod = "close")
    public FrontierRuntime frontierRuntime() {
        return new FrontierRuntime();
    }

    /** Registers the servlets: their number is known only from the configuration. */
    @Bean
    public org.springframework.boot.web.servlet.ServletContextInitializer frontierServlets(FrontierDatabases dbs,
                                                                                          FrontierRuntime runtime,
                                                                                          MeterRegistry registry,
                                                                                          io.outpost.server.cache.Catalog catalog,
                                                                                          IovStore store,
                                                                                          io.outpost.server.rows.RowStore rows) {
        // COOL's IOV reads of the service's own folders are answered from the rows the native API holds
        var held = new io.outpost.server.rows.HeldFrontierReads(store, rows);
        return servletContext -> {
            for (FrontierContext ctx : dbs.contexts()) {
                FrontierServlet servlet = new FrontierServlet(ctx, runtime, dbs.answerCacheBytes(ctx.name()),
                        dbs.costLimits.getOrDefault(ctx.name(), QueryCostLimits.defaults()),
                        dbs.onServiceTables.contains(ctx.name()) ? held : null);
                countAnswers(registry, ctx.name(), servlet.answers());
                // a served snapshot's sync changes the catalog: the servlet then re-reads what the snapshot covers
                catalog.onChange(servlet::reloadSnapshotCoverage);
                var reg = servletContext.addServlet("frontier-" + ctx.name(), servlet);
                reg.addMapping(ctx.servletMapping());
                reg.setLoadOnStartup(1);
                reg.setAsyncSupported(false);
            }
        };
    }

    /** The answer cache's counters as {@code outpost.frontier.answers.{hits,loads,joins,reused}{context}}. */
    private static void countAnswers(MeterRegistry registry, String context, io.outpost.frontier.answers.FrontierAnswers a) {
        io.micrometer.core.instrument.FunctionCounter.builder("outpost.frontier.answers.hits", a,
                io.outpost.frontier.answers.FrontierAnswers::hits).tag("context", context)
                .description("Frontier payloads served from the answer cache").register(registry);
        io.micrometer.core.instrument.FunctionCounter.builder("outpost.frontier.answers.loads", a,
                io.outpost.frontier.answers.FrontierAnswers::loads).tag("context", context)
                .description("database runs of Frontier queries the answer cache could keep").register(registry);
        io.micrometer.core.instrument.FunctionCounter.builder("outpost.frontier.answers.joins", a,
                io.outpost.frontier.answers.FrontierAnswers::joins).tag("context", context)
                .description("Frontier requests that waited for an identical request's query").register(registry);
        if (a.byContent() != null) {
            io.micrometer.core.instrument.FunctionCounter.builder("outpost.frontier.answers.reused", a.byContent(),
                    io.outpost.frontier.encode.EncodedRecords::reused).tag("context", context)
                    .description("Frontier answers whose rows matched an earlier answer's: its compressed text was reused")
                    .register(registry);
        }
    }
}
