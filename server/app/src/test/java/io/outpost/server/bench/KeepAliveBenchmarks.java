package io.outpost.server.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.outpost.server.support.RunningService;
import io.outpost.store.demo.DemoData;
import java.util.Arrays;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * What the shorter idle timeout when busy costs keep-alive clients (a Squid's persistent connections) below its
 * mark: a memory hit over 20 kept connections, the service with it on (the default) against one with it off
 * ({@code outpost.http.busy-connections-percent=0}), both started in this run and taking turns (6 rounds of 3 s; the
 * ratio is the median of the rounds' ratios). Every response of a short run per service is checked, and every timed
 * run's errors and bytes per response ({@link ExternalTools#wrk}); no connection may be closed as idle. Target:
 * no loss (a ratio within the rounds' noise of 1). Run with
 * {@code ./mvnw -B -ntp -Pbenchmark test -pl server/app -Dtest=KeepAliveBenchmarks}.
 */
@Tag("benchmark")
class KeepAliveBenchmarks {
    private static final String HIT = "/v1/json/at/HEAD/" + (DemoData.T0 + 5 * DemoData.HOUR + 17)
            + "/all/DEMO/Calo/Pedestals";
    private static final int ROUNDS = 6;
    private static final int CONNECTIONS = 20;

    @Test
    void idleTimeoutWhenBusyCostsKeptConnectionsNothingBelowTheMark() throws Exception {
        assumeTrue(ExternalTools.available("wrk"), "wrk is not installed (./outpost bench installs it)");
        try (RunningService on = RunningService.startSqliteDemo("--logging.level.outpost.access=warn");
             RunningService off = RunningService.startSqliteDemo("--logging.level.outpost.access=warn",
                     "--outpost.http.busy-connections-percent=0")) {
            byte[] body = on.get(HIT).body();
            assertThat(off.get(HIT).body()).as("the same answer from both").isEqualTo(body);
            ExternalTools.Expected expected = ExternalTools.Expected.body(body.length);
            for (RunningService svc : new RunningService[] {on, off}) {
                ExternalTools.verify(svc.url(HIT), CONNECTIONS, null, expected);
                ExternalTools.wrk(svc.url(HIT), CONNECTIONS, 2, null, expected); // warm-up
            }
            double[] ratios = new double[ROUNDS];
            double rateOn = 0;
            double rateOff = 0;
            for (int round = 0; round < ROUNDS; round++) {
                // each first in every other round
                boolean onFirst = round % 2 == 0;
                double first = ExternalTools.wrk((onFirst ? on : off).url(HIT), CONNECTIONS, 3, null, expected);
                double second = ExternalTools.wrk((onFirst ? off : on).url(HIT), CONNECTIONS, 3, null, expected);
                double withIt = onFirst ? first : second;
                double without = onFirst ? second : first;
                ratios[round] = withIt / without;
                rateOn += withIt / ROUNDS;
                rateOff += without / ROUNDS;
            }
            assertThat(closedAsIdle(on)).as("connections closed as idle below the mark").isZero();
            double[] r = ratios.clone();
            Arrays.sort(r);
            ServiceBenchmarks.report(String.format("memory hit %d bytes, %d kept connections, idle timeout when busy "
                    + "on vs off: %.0f vs %.0f req/s, median ratio %.2f (rounds %.2f-%.2f; target: no loss)",
                    body.length, CONNECTIONS, rateOn, rateOff, (r[ROUNDS / 2 - 1] + r[ROUNDS / 2]) / 2, r[0],
                    r[ROUNDS - 1]));
        }
    }

    private static double closedAsIdle(RunningService svc) {
        Counter c = svc.bean(MeterRegistry.class).find("outpost.connections.closed").tag("reason", "busy-idle-timeout")
                .counter();
        return c == null ? 0 : c.count();
    }
}
