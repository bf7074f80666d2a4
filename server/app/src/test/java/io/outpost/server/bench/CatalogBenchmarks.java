package io.outpost.server.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.store.IovStore;
import io.outpost.store.model.KeyType;
import io.outpost.store.model.NewIov;
import io.outpost.store.model.Node;
import io.outpost.store.model.PayloadSpec;
import io.outpost.store.model.ValidityKey;
import io.outpost.store.model.Versioning;
import io.outpost.store.testing.Backends;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The generation poll of many folders (the catalog reads every folder's stamp every poll interval): one
 * transaction per folder, as the catalog polled first, against all stamps in one transaction (200 folders a
 * statement), side by side.
 * Run: {@code ./mvnw -Pbenchmark test -pl server/app -Dtest=CatalogBenchmarks} ({@code -Dfolders=N}, default 1000).
 */
@Tag("benchmark")
class CatalogBenchmarks {
    @ParameterizedTest
    @EnumSource(Backends.class)
    void pollOfManyFolders(Backends backend) {
        int n = Integer.getInteger("folders", 1000);
        try (IovStore store = backend.freshStore("bench_catalog")) {
            List<Node> folders = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                Node f = store.createFolder(String.format("/SCALE/D%02d/F%05d", i % 50, i),
                        i % 3 == 0 ? Versioning.MULTI_VERSION : Versioning.SINGLE_VERSION,
                        i % 4 == 0 ? KeyType.RUN_LUMI : KeyType.TIME, PayloadSpec.parse("v:Int32"), "", true);
                store.store(f, List.of(new NewIov(0, 0, ValidityKey.MAX, i)));
                folders.add(f);
            }
            double each = Double.MAX_VALUE;
            double one = Double.MAX_VALUE;
            for (int rep = 0; rep < 5; rep++) {
                long t0 = System.nanoTime();
                Map<String, String> separate = new HashMap<>();
                for (Node f : folders) {
                    separate.put(f.path(), store.modificationStamp(f));
                }
                each = Math.min(each, (System.nanoTime() - t0) / 1e6);
                t0 = System.nanoTime();
                Map<String, String> together = store.modificationStamps(folders);
                one = Math.min(one, (System.nanoTime() - t0) / 1e6);
                assertThat(together).hasSize(n).isEqualTo(separate);
            }
            ServiceBenchmarks.report(String.format("catalog poll of %d folders (%s): one transaction per folder %.1f ms, "
                    + "all in one transaction (200 a statement) %.1f ms (ratio %.2f); %.1f us per folder", n, backend, each, one,
                    one / each, 1000 * one / n));
        }
    }
}
