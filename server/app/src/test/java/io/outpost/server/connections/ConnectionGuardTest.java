package io.outpost.server.connections;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The per-address limit counts an IPv6 client by its prefix (issue "Trust at the edges"): a host is given a whole
 * /64, and counting exact addresses would give it as many connections as it likes. (Only ::1 can be bound on a test
 * machine, so the addresses are handed to the guard as an endpoint would.)
 */
class ConnectionGuardTest {

    @Test
    void anIpv6PrefixCountsAsOneAddress() throws Exception {
        try (ConnectionGuard guard = guard(64)) {
            assertThat(admitted(guard, "2001:db8:1:2::5")).isTrue();
            assertThat(admitted(guard, "2001:db8:1:2:ffff:1:2:3")).isTrue();
            assertThat(admitted(guard, "2001:db8:1:2::9")).as("a third from the same /64").isFalse();
            assertThat(admitted(guard, "2001:db8:1:3::5")).as("another /64").isTrue();
            assertThat(admitted(guard, "192.0.2.1")).isTrue();
            assertThat(admitted(guard, "192.0.2.1")).isTrue();
            assertThat(admitted(guard, "192.0.2.2")).as("IPv4 addresses are counted alone").isTrue();
            assertThat(admitted(guard, "192.0.2.1")).isFalse();
        }
        try (ConnectionGuard guard = guard(128)) { // each address alone
            assertThat(admitted(guard, "2001:db8:1:2::5")).isTrue();
            assertThat(admitted(guard, "2001:db8:1:2::5")).isTrue();
            assertThat(admitted(guard, "2001:db8:1:2::9")).isTrue();
            assertThat(admitted(guard, "2001:db8:1:2::5")).isFalse();
        }
        // (a prefix length out of 1 … 128 is refused as the settings are bound: SettingsValidationTest)
    }

    @Test
    void theKeyKeepsThePrefixBitsOnly() throws Exception {
        try (ConnectionGuard guard = guard(56)) {
            assertThat(guard.clientKey(InetAddress.getByName("2001:db8:1:2ff:1::1")))
                    .isEqualTo(InetAddress.getByName("2001:db8:1:200::"));
        }
    }

    private static ConnectionGuard guard(int prefix) {
        return new ConnectionGuard(2, prefix, Duration.ofSeconds(10), a -> false,
                new ConnectionGuard.Busy(80, Duration.ofSeconds(2)), new SimpleMeterRegistry());
    }

    private static boolean admitted(ConnectionGuard guard, String address) throws Exception {
        InetSocketAddress peer = new InetSocketAddress(InetAddress.getByName(address), 40_000);
        return !ConnectionGuard.refuses(guard, new Object(), () -> peer);
    }
}
