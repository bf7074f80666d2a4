package io.outpost.server.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.outpost.server.rows.HeldRows;
import io.outpost.server.rows.RowStore;
import io.outpost.server.rows.RowStoreProperties;
import io.outpost.store.IovStore;
import io.outpost.store.model.ChannelSelection;
import io.outpost.store.model.NewIov;
import io.outpost.store.model.Node;
import io.outpost.store.model.ValidityKey;
import io.outpost.store.read.IovReader;
import io.outpost.store.testing.Backends;
import io.outpost.store.workload.Workload;
import io.outpost.store.workload.WorkloadGenerator;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.util.unit.DataSize;

/**
 * Held rows after a write: the whole-layer read (what every write cost before incremental refresh) against the
 * refresh that re-reads only the written channel, and a raw JDBC read of the whole layer, side by side in one run on
 * PostgreSQL. Run: {@code ./mvnw -q -Pbenchmark test -pl server/app -Dtest=RowStoreBenchmarks}.
 */
@Tag("benchmark")
class RowStoreBenchmarks {
    @Test
    void refreshAfterAWriteAgainstAWholeRead() {
        try (IovStore store = Backends.POSTGRESQL.freshStore("bench_rows")) {
            Node f = new WorkloadGenerator(store, 5).populate(Workload.COOL_BROWSE, 1.0, n -> { }).get(0);
            long[] last = {0};
            store.browse(f, 0, ValidityKey.MAX, ChannelSelection.channel(0), null, iov -> last[0] = iov.since());
            int reps = 5;
            double refresh = Double.MAX_VALUE;
            double whole = Double.MAX_VALUE;
            double jdbc = Double.MAX_VALUE;
            for (int rep = 0; rep < reps; rep++) {
                SimpleMeterRegistry incremental = new SimpleMeterRegistry();
                RowStore refreshing = new RowStore(store, new RowStoreProperties(true, DataSize.ofMegabytes(512), 0.9, Duration.ofHours(1), true, true),
                        incremental);
                HeldRows first = refreshing.rows(f, refreshing.state(f, "HEAD"));
                assertThat(first.size()).isGreaterThanOrEqualTo(200_000);
                store.store(f, List.of(new NewIov(0, last[0] + 1000 * (rep + 1), ValidityKey.MAX, 1, "x")));

                long t0 = System.nanoTime();
                HeldRows after = refreshing.rows(f, refreshing.state(f, "HEAD"));
                refresh = Math.min(refresh, (System.nanoTime() - t0) / 1e6);
                assertThat(after.size()).isEqualTo(first.size() + 1);
                assertThat(incremental.counter("outpost.rows.refreshes").count()).isEqualTo(1);

                RowStore fresh = new RowStore(store, new RowStoreProperties(true, DataSize.ofMegabytes(512), 0.9, Duration.ofHours(1), true, true),
                        new SimpleMeterRegistry());
                t0 = System.nanoTime();
                HeldRows rebuilt = fresh.rows(f, fresh.state(f, "HEAD"));
                whole = Math.min(whole, (System.nanoTime() - t0) / 1e6);
                assertThat(rebuilt.size()).isEqualTo(after.size());

                t0 = System.nanoTime();
                long[] n = {0};
                store.browse(IovReader.spec(f, store.layer(f, null), 0, ValidityKey.MAX, ChannelSelection.all()),
                        iov -> n[0]++);
                jdbc = Math.min(jdbc, (System.nanoTime() - t0) / 1e6);
                assertThat(n[0]).isEqualTo(after.size());
            }
            ServiceBenchmarks.report(String.format("held rows, coolBrowse 200k IOVs (PostgreSQL), after a one-IOV write: "
                    + "incremental refresh %.1f ms, whole-layer build %.1f ms (ratio %.3f), raw JDBC read of the layer "
                    + "%.1f ms", refresh, whole, refresh / whole, jdbc));
        }
    }
}
