package io.outpost.server.config;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.validation.annotation.Validated;

/**
 * An optional read replica (prefix {@code outpost.read-replica}): when {@code url} is set, queries and polling
 * use it and writes, migrations and idempotency checks use {@code outpost.database.url} (the primary). User and
 * password default to the primary's.
 *
 * @param url a PostgreSQL hot standby or an Oracle Active Data Guard service of the primary
 */
@Validated
@ConfigurationProperties("outpost.read-replica")
public record ReadReplicaProperties(String url, String user, String password) {

    public boolean configured() {
        return url != null && !url.isBlank();
    }
}
