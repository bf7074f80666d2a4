package io.outpost.server.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.server.cache.Catalog;
import io.outpost.server.support.RunningService;
import io.outpost.store.IovStore;
import io.outpost.store.db.DatabaseConfig;
import io.outpost.store.export.RemoteSnapshots;
import io.outpost.store.export.SnapshotExporter;
import io.outpost.store.model.ValidityKey;
import io.outpost.store.workload.Workload;
import io.outpost.store.workload.WorkloadGenerator;
import io.outpost.testkit.TempDirs;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Snapshot export over HTTP ({@code export --server}: the service writes each folder's copy, the loader downloads
 * and moves it in) against the JDBC export and the bulk loader, same run, same SQLite source behind an in-process
 * service. Run: {@code ./mvnw -q -Pbenchmark test -pl server/app -Dtest=RemoteExportBenchmarks}.
 */
@Tag("benchmark")
class RemoteExportBenchmarks {

    @Test
    void exportOverHttpVsJdbcExportAndBulkLoader() throws Exception {
        for (double scale : new double[] {0.02, 0.05}) {
            Path dir = TempDirs.create("remote-export-bench");
            try (RunningService svc = RunningService.start("jdbc:sqlite:" + dir.resolve("source.db"),
                    "--outpost.demo-data=false")) {
                IovStore source = svc.bean(IovStore.class);
                Workload w = Workload.ATLAS_PROMPT;
                long total = w.totalIovs(scale);
                long t0 = System.nanoTime();
                var folders = new WorkloadGenerator(source, 1).populate(w, scale, n -> { });
                double loadSec = (System.nanoTime() - t0) / 1e9;
                assertThat(folders.stream().mapToLong(f -> source.count(f, 0, ValidityKey.MAX,
                        io.outpost.store.model.ChannelSelection.all(), null)).sum()).as("IOVs loaded").isEqualTo(total);
                svc.bean(Catalog.class).refresh();
                SnapshotExporter.Request all = new SnapshotExporter.Request("HEAD", 0, ValidityKey.MAX, null);

                t0 = System.nanoTime();
                try (IovStore target = IovStore.open(DatabaseConfig.of("jdbc:sqlite:" + dir.resolve("jdbc.db")))) {
                    assertThat(new SnapshotExporter(source, target).export(all, SnapshotExporter.Progress.NONE).iovs())
                            .isEqualTo(total);
                }
                double jdbcSec = (System.nanoTime() - t0) / 1e9;
                t0 = System.nanoTime();
                try (IovStore target = IovStore.open(DatabaseConfig.of("jdbc:sqlite:" + dir.resolve("http.db")))) {
                    assertThat(new RemoteSnapshots(svc.url(""), target.database()).export(all,
                            SnapshotExporter.Progress.NONE).iovs()).isEqualTo(total);
                }
                double httpSec = (System.nanoTime() - t0) / 1e9;
                System.out.println(String.format("BENCHMARK export over HTTP: atlasPrompt x%.2f = %d IOVs: bulk loader %.0f"
                        + " IOVs/s, JDBC export %.0f IOVs/s, HTTP export %.0f IOVs/s; HTTP/JDBC %.2f, HTTP/loader %.2f"
                        + " (target >= 0.5)", scale, total, total / loadSec, total / jdbcSec, total / httpSec,
                        jdbcSec / httpSec, loadSec / httpSec));
            } finally {
                TempDirs.deleteQuietly(dir);
            }
        }
    }
}
