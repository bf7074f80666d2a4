package io.outpost.server.connections;

import io.outpost.server.config.AddressBlocks;
import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import java.time.Duration;
import java.util.List;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * The limits Tomcat lacks, enforced by the {@link ConnectionGuard} (prefix {@code outpost.http}; docs/operations.md,
 * "Limits and exposure").
 *
 * @param maxConnectionsPerAddress connections one client address may hold at once; 0: no limit
 * @param ipv6PrefixLength         leading bits of an IPv6 address that name one client for that limit (64: a host's
 *                                 whole /64 counts as one address; 128: each address alone)
 * @param unlimitedAddresses       addresses and CIDR blocks exempt from that limit besides the trusted proxies (by
 *                                 default the host itself: a local Squid, monitoring)
 * @param requestHeadTimeout       longest time from a request's first byte to the end of its headers
 * @param busyConnectionsPercent   from this share of {@code server.tomcat.max-connections} open, idle connections
 *                                 get {@code busyIdleTimeout}; 0: never
 * @param busyIdleTimeout          when busy, how long a connection may stay idle between requests or before its
 *                                 first byte
 */
@Validated
@ConfigurationProperties("outpost.http")
public record HttpProperties(
        @DefaultValue("50") @Min(value = 0, message = "outpost.http.max-connections-per-address must be 0 (no limit)"
                + " or more, not ${validatedValue}") int maxConnectionsPerAddress,
        @DefaultValue("64")
        @Min(value = 1, message = "outpost.http.ipv6-prefix-length must be 1 to 128, not ${validatedValue}")
        @Max(value = 128, message = "outpost.http.ipv6-prefix-length must be 1 to 128, not ${validatedValue}")
        int ipv6PrefixLength,
        @DefaultValue({"127.0.0.1", "::1"}) @AddressBlocks(key = "outpost.http.unlimited-addresses")
        List<String> unlimitedAddresses,
        @DefaultValue("10s") @DurationMin(nanos = 0, inclusive = false,
                message = "outpost.http.request-head-timeout must be positive, not ${validatedValue}")
        Duration requestHeadTimeout,
        @DefaultValue("80")
        @Min(value = 0, message = "outpost.http.busy-connections-percent must be 0 (never) to 100, not ${validatedValue}")
        @Max(value = 100, message = "outpost.http.busy-connections-percent must be 0 (never) to 100, not ${validatedValue}")
        int busyConnectionsPercent,
        @DefaultValue("2s") Duration busyIdleTimeout) {

    /** The idle timeout matters only when the busy mark is on. */
    @AssertTrue(message = "outpost.http.busy-idle-timeout must be positive while outpost.http.busy-connections-percent"
            + " is above 0")
    public boolean isBusyIdleTimeoutPositive() {
        return busyConnectionsPercent == 0 || busyIdleTimeout.isPositive();
    }

    /** When idle connections get the shorter timeout, as the guard takes it. */
    public ConnectionGuard.Busy busy() {
        return new ConnectionGuard.Busy(busyConnectionsPercent, busyIdleTimeout);
    }
}
