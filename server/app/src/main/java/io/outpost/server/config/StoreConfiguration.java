package io.outpost.server.config;

import com.zaxxer.hikari.metrics.micrometer.MicrometerMetricsTrackerFactory;
import io.micrometer.core.instrument.MeterRegistry;
import io.outpost.store.IovStore;
import io.outpost.store.db.Database;
import io.outpost.store.db.DatabaseConfig;
import io.outpost.store.demo.DemoData;
import io.outpost.store.schema.SchemaManager;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Opens the conditions database, migrates it, and loads the demo data into an empty embedded database. */
@Configuration(proxyBeanMethods = false)
@org.springframework.boot.context.properties.EnableConfigurationProperties(ReadReplicaProperties.class)
public class StoreConfiguration {
    private static final Logger log = LoggerFactory.getLogger(StoreConfiguration.class);

    @Bean(destroyMethod = "close")
    public IovStore iovStore(OutpostProperties props, ReadReplicaProperties replica, MeterRegistry registry)
            throws IOException, java.sql.SQLException {
        OutpostProperties.Database d = props.database();
        DatabaseConfig config = new DatabaseConfig(d.url(), d.user(), d.password(), d.tablePrefix(), d.readPoolSize(),
                d.writePoolSize(), d.connectionTimeout(), d.statementTimeout());
        java.util.function.Consumer<com.zaxxer.hikari.HikariConfig> metrics =
                h -> h.setMetricsTrackerFactory(new MicrometerMetricsTrackerFactory(registry));
        Database db;
        if (replica.configured()) {
            DatabaseConfig read = new DatabaseConfig(replica.url(), replica.user() != null ? replica.user() : d.user(),
                    replica.password() != null ? replica.password() : d.password(), d.tablePrefix(), d.readPoolSize(),
                    d.writePoolSize(), d.connectionTimeout(), d.statementTimeout());
            db = Database.open(config, read, metrics);
            log.info("reads go to the replica {}", read.maskedUrl());
        } else {
            db = Database.open(config, metrics);
        }
        new SchemaManager(db).migrate();
        if (replica.configured() && !ReplicaReplay.await(db, 60_000)) {
            // the replica lags by more than a minute: reads of new tables would fail until it catches up
            log.warn("the read replica has not replayed the schema migrations within 60 s");
        }
        IovStore store = new IovStore(db);
        log.info("conditions database {} ({})", config.maskedUrl(), db.dialect().name());
        if (props.demoData() && DemoData.isEmpty(store)) {
            log.info("empty database: loading the demo data set");
            DemoData.load(store);
        }
        return store;
    }
}
