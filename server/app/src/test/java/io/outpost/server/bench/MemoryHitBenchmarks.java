package io.outpost.server.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.outpost.server.cache.Catalog;
import io.outpost.server.support.RunningService;
import io.outpost.server.support.WireDecoder;
import io.outpost.store.IovStore;
import io.outpost.testkit.TempDirs;
import io.outpost.store.workload.Workload;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Native memory hits (answered by MemoryHitValve inside Tomcat) against nginx serving the same bytes from a file:
 * a ~200 B and a ~420 KB answer, at 1 and 20 connections, for each way of running Tomcat a site could choose
 * (the NIO2 connector, the default; NIO; NIO2 on virtual threads; the memory-hit valve in the engine's pipeline
 * instead of the context's), all started in this run and taking turns with
 * nginx (5 rounds of 3 s each; the ratio is the median of the rounds' ratios). Every response of a short run per
 * server is checked (status 200, the body's length), and every timed run's errors and bytes per response
 * ({@link ExternalTools#wrk}). Target: at least 0.7 of nginx's rate. Run with
 * {@code ./mvnw -B -ntp -Pbenchmark test -pl server/app -Dtest=MemoryHitBenchmarks}.
 */
@Tag("benchmark")
class MemoryHitBenchmarks {
    private static final String AT = "/v1/bin/at/HEAD/" + (Workload.T0 + 1);
    private static final String[][] CANDIDATES = {
        {"Tomcat NIO2 (default)"},
        {"Tomcat NIO2, virtual threads", "--spring.threads.virtual.enabled=true"},
    };
    private static final int ROUNDS = 5;

    @Test
    void memoryHitsAgainstNginx() throws Exception {
        assumeTrue(ExternalTools.available("nginx") && ExternalTools.available("wrk"),
                "nginx and wrk are not installed (./outpost bench installs them)");
        List<RunningService> services = new ArrayList<>();
        Path root = TempDirs.create("outpost-static");
        List<String> lines = new ArrayList<>();
        try (ExternalTools.Nginx nginx = new ExternalTools.Nginx(root)) {
            for (String[] c : CANDIDATES) {
                List<String> args = new ArrayList<>(List.of("--outpost.demo-data=false",
                        "--logging.level.outpost.access=warn"));
                args.addAll(List.of(c).subList(1, c.length));
                RunningService svc = RunningService.startSqliteDemo(args.toArray(String[]::new));
                services.add(svc);
                BenchData.load(svc.bean(IovStore.class), false);
                svc.bean(Catalog.class).refresh();
            }
            // one channel of the small folder (~200 B), and likeLuis1iov's 10k channels (~420 KB)
            String[][] answers = {{"small", AT + "/0" + BenchData.SMALL}, {"large", AT + "/all" + BenchData.LUIS}};
            for (String[] a : answers) {
                byte[] body = services.get(0).get(a[1]).body();
                WireDecoder.decode(body);
                Path file = root.resolve(a[0] + ".bin");
                Files.write(file, body);
                String nginxUrl = "http://127.0.0.1:" + nginx.port + "/" + a[0] + ".bin";
                for (RunningService svc : services) {
                    assertThat(svc.get(a[1]).body()).as("the same answer from every candidate").isEqualTo(body);
                }
                ExternalTools.Expected expected = ExternalTools.Expected.body(body.length);
                ExternalTools.verify(nginxUrl, 20, null, expected);
                for (RunningService svc : services) {
                    ExternalTools.verify(svc.url(a[1]), 20, null, expected);
                }
                for (int conns : new int[] {1, 20}) {
                    int threads = Math.min(2, conns);
                    for (RunningService svc : services) { // warm-up: the JIT, and the answer cached in each
                        ExternalTools.wrk(svc.url(a[1]), threads, conns, 2, null, expected);
                    }
                    double[][] ratios = new double[services.size()][ROUNDS];
                    double[][] rates = new double[services.size()][2];
                    for (int round = 0; round < ROUNDS; round++) {
                        for (int i = 0; i < services.size(); i++) {
                            double outpost = ExternalTools.wrk(services.get(i).url(a[1]), threads, conns, 3, null,
                                    expected);
                            double reference = ExternalTools.wrk(nginxUrl, threads, conns, 3, null, expected);
                            ratios[i][round] = outpost / reference;
                            rates[i][0] += outpost / ROUNDS;
                            rates[i][1] += reference / ROUNDS;
                        }
                    }
                    for (int i = 0; i < services.size(); i++) {
                        double[] r = ratios[i].clone();
                        java.util.Arrays.sort(r);
                        lines.add(String.format("memory hit %d bytes, %d connection(s), %s: %.0f vs nginx %.0f req/s, "
                                + "Outpost/nginx median ratio %.2f (rounds %.2f-%.2f; target >= 0.7)", body.length,
                                conns, CANDIDATES[i][0], rates[i][0], rates[i][1], r[ROUNDS / 2], r[0],
                                r[ROUNDS - 1]));
                    }
                }
            }
            lines.forEach(ServiceBenchmarks::report);
        } finally {
            services.forEach(RunningService::close);
            TempDirs.deleteQuietly(root);
        }
    }
}
