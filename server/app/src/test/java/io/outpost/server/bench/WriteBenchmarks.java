package io.outpost.server.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.server.support.RunningService;
import io.outpost.store.IovStore;
import io.outpost.store.cli.LoaderCli;
import io.outpost.store.db.DatabaseConfig;
import io.outpost.store.model.ChannelSelection;
import io.outpost.store.model.Node;
import io.outpost.store.model.ValidityKey;
import io.outpost.store.workload.Workload;
import io.outpost.store.workload.WorkloadGenerator;
import io.outpost.testkit.PostgresServer;
import io.outpost.testkit.TokenIssuer;
import java.util.Locale;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Bulk insertion of the atlasPrompt sample through the write API ({@code outpost-loader generate --server}) vs the
 * in-process loader, both into fresh databases of the same PostgreSQL server, in one run (docs/benchmarks.md).
 * Run: {@code ./mvnw -q -Pbenchmark test -pl server/app -Dtest=WriteBenchmarks}.
 */
@Tag("benchmark")
class WriteBenchmarks {
    private static final double SCALE = Double.parseDouble(System.getProperty("outpost.bench.writeScale", "0.02"));
    private static final int ROUNDS = Integer.getInteger("outpost.bench.writeRounds", 3);

    @Test
    void bulkInsertionThroughHttpVsInProcess() throws Exception {
        Workload w = Workload.ATLAS_PROMPT;
        long iovs = w.totalIovs(SCALE);
        double bestHttp = Double.MAX_VALUE;
        double bestLocal = Double.MAX_VALUE;
        try (TokenIssuer issuer = new TokenIssuer()) {
            String token = issuer.token("bench", "conditions.write:/LOAD");
            for (int round = 0; round < ROUNDS; round++) {
                String httpDb = PostgresServer.shared().createDatabase("bench_http");
                try (RunningService svc = RunningService.start(httpDb, "--outpost.database.user=postgres",
                        "--outpost.demo-data=false", "--outpost.write.issuer-uri=" + issuer.issuerUri(),
                        "--outpost.write.max-body-size=256MB")) {
                    long t0 = System.nanoTime();
                    int exit = LoaderCli.configure(new CommandLine(new LoaderCli())).execute("generate", w.label(),
                            "--scale", Double.toString(SCALE), "--seed", "1", "--server", svc.url(""), "--token", token);
                    bestHttp = Math.min(bestHttp, (System.nanoTime() - t0) / 1e9);
                    assertThat(exit).isZero();
                    assertThat(storedIovs(svc.bean(IovStore.class))).as("IOVs stored through HTTP").isEqualTo(iovs);
                }
                String localDb = PostgresServer.shared().createDatabase("bench_local");
                try (IovStore store = IovStore.open(DatabaseConfig.of(localDb, "postgres", ""))) {
                    long t0 = System.nanoTime();
                    new WorkloadGenerator(store, 1).populate(w, SCALE, n -> { });
                    bestLocal = Math.min(bestLocal, (System.nanoTime() - t0) / 1e9);
                    assertThat(storedIovs(store)).as("IOVs stored in-process").isEqualTo(iovs);
                }
            }
        }
        double ratio = bestLocal / bestHttp;
        ServiceBenchmarks.report(String.format(Locale.ROOT, "write atlasPrompt x%s (%d IOVs of 1000 chars, PostgreSQL):"
                + " in-process %.0f IOVs/s, HTTP write API %.0f IOVs/s, HTTP/in-process %.2fx (best of %d)", SCALE, iovs,
                iovs / bestLocal, iovs / bestHttp, ratio, ROUNDS));
        assertThat(ratio).as("HTTP bulk insertion relative to the in-process loader").isGreaterThanOrEqualTo(0.7);
    }

    /** Every IOV of every folder of the workload (counted after the timing, so that both sides wrote all of it). */
    private static long storedIovs(IovStore store) {
        return store.listNodes().stream().filter(Node::isFolder).filter(f -> f.path().startsWith("/LOAD/"))
                .mapToLong(f -> store.count(f, 0, ValidityKey.MAX, ChannelSelection.all(), null)).sum();
    }
}
