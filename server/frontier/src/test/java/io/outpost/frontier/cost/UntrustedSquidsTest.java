package io.outpost.frontier.cost;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class UntrustedSquidsTest {
    @Test
    void warnsOnceWhenOneCacheSendsMostRequests() {
        UntrustedSquids squids = new UntrustedSquids();
        String warning = null;
        int warnings = 0;
        for (int i = 0; i < 5 * UntrustedSquids.WINDOW; i++) {
            String w = squids.saw(i % 4 == 0 ? "192.0.2." + (i % 200) : "198.51.100.7", i % 4 != 0);
            if (w != null) {
                warning = w;
                warnings++;
            }
        }
        assertThat(warnings).isEqualTo(1);
        assertThat(warning).contains("198.51.100.7").contains("outpost.trusted-proxies").contains("150 of the last 200");
    }

    @Test
    void trustedSquidsAndDirectJobsAreNoCause() {
        UntrustedSquids squids = new UntrustedSquids();
        for (int i = 0; i < 5 * UntrustedSquids.WINDOW; i++) {
            // requests through a trusted Squid, or straight from the jobs, are no cause
            assertThat(squids.saw("10.1.0." + (i % 50), false)).isNull();
            assertThat(squids.saw("10.2.0.1", false)).isNull();
        }
    }

    @Test
    void manyAddressesSendingViaCannotGrowTheCounters() {
        UntrustedSquids squids = new UntrustedSquids();
        for (int i = 0; i < UntrustedSquids.WINDOW - 1; i++) {
            squids.saw("2001:db8::" + Integer.toHexString(i), true);
        }
        // the next window: 99 of 200 from one address is not most
        for (int i = 0; i < UntrustedSquids.WINDOW; i++) {
            assertThat(squids.saw(i < 100 ? "203.0.113.9" : "203.0.113." + (i % 100), true)).isNull();
        }
    }
}
