package io.outpost.store.export;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.store.IovStore;
import io.outpost.store.model.ChannelSelection;
import io.outpost.store.model.Node;
import io.outpost.store.model.ValidityKey;
import io.outpost.store.testing.Backends;
import io.outpost.store.workload.Workload;
import io.outpost.store.workload.WorkloadGenerator;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Export of the atlasPrompt sample vs the bulk loader that wrote it, same run, same backend (source and snapshot
 * both SQLite, or both PostgreSQL): IOVs per second and peak heap of each, at two sizes, to show the export's
 * memory does not grow with the data. Run: {@code ./mvnw -q -Pbenchmark test -pl server/store -Dtest=ExportBenchmarks}.
 */
@Tag("benchmark")
class ExportBenchmarks {

    @ParameterizedTest
    @EnumSource(Backends.class)
    void exportVsBulkLoader(Backends backend) {
        for (double scale : new double[] {0.02, 0.05}) {
            Workload w = Workload.ATLAS_PROMPT;
            long total = w.totalIovs(scale);
            try (IovStore source = backend.freshStore("exportsrc");
                 // a MariaDB site's snapshots are SQLite files: that is the export measured there
                 IovStore target = (backend == Backends.MARIADB ? Backends.SQLITE : backend).freshStore("exportdst")) {
                resetPeaks();
                long t0 = System.nanoTime();
                List<Node> folders = new WorkloadGenerator(source, 1).populate(w, scale, n -> { });
                double loadSec = (System.nanoTime() - t0) / 1e9;
                long loadPeak = heapPeak();

                resetPeaks();
                t0 = System.nanoTime();
                SnapshotExporter.Result r = new SnapshotExporter(source, target).export(
                        new SnapshotExporter.Request("HEAD", 0, ValidityKey.MAX, null), SnapshotExporter.Progress.NONE);
                double exportSec = (System.nanoTime() - t0) / 1e9;
                long exportPeak = heapPeak();
                assertThat(r.iovs()).isEqualTo(total);
                assertThat(target.count(target.folder(folders.get(0).path()), 0, ValidityKey.MAX, ChannelSelection.all(),
                        null)).isEqualTo(total / folders.size());
                System.out.println(String.format("BENCHMARK export %s%s: atlasPrompt x%.2f = %d IOVs of 1000 chars: bulk loader "
                        + "%.0f IOVs/s (peak heap %d MB), export %.0f IOVs/s (peak heap %d MB), ratio %.2f (target >= 0.5)",
                        backend, backend == Backends.MARIADB ? " to SQLITE" : "", scale, total, total / loadSec, loadPeak >> 20, total / exportSec, exportPeak >> 20,
                        loadSec / exportSec));
            }
        }
    }

    private static void resetPeaks() {
        System.gc();
        for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
            if (p.getType() == MemoryType.HEAP) {
                p.resetPeakUsage();
            }
        }
    }

    /** Sum of the heap pools' peak usage since the last reset (an upper bound of the live peak). */
    private static long heapPeak() {
        long sum = 0;
        for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
            if (p.getType() == MemoryType.HEAP) {
                sum += p.getPeakUsage().getUsed();
            }
        }
        return sum;
    }
}
