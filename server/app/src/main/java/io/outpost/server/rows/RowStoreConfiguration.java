package io.outpost.server.rows;

import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Configuration;

/** Registers {@link RowStoreProperties}. */
@Configuration
@EnableConfigurationProperties(RowStoreProperties.class)
class RowStoreConfiguration {
}
