package io.outpost.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.store.model.ChannelSelection;
import io.outpost.store.model.Iov;
import io.outpost.store.model.KeyType;
import io.outpost.store.model.NewIov;
import io.outpost.store.model.Node;
import io.outpost.store.model.PayloadSpec;
import io.outpost.store.model.ValidityKey;
import io.outpost.store.model.Versioning;
import io.outpost.store.testing.Backends;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Writers of one folder are serialised: however their batches interleave, the stored single-version history
 * of every channel stays a set of non-overlapping intervals, and every accepted batch is stored whole.
 */
class ConcurrentWritersTest {

    @ParameterizedTest
    @EnumSource(Backends.class)
    void concurrentWritersNeverCreateOverlaps(Backends backend) throws Exception {
        var config = backend.freshConfig("concurrent").withPools(4, 4);
        try (IovStore store = IovStore.open(config)) {
            Node f = store.createFolder("/C/sv", Versioning.SINGLE_VERSION, KeyType.TIME, PayloadSpec.parse("v:Int32"), "", true);
            ExecutorService pool = Executors.newFixedThreadPool(4);
            List<Future<Integer>> results = new ArrayList<>();
            for (int w = 0; w < 4; w++) {
                int writer = w;
                results.add(pool.submit(() -> {
                    Random rnd = new Random(writer);
                    int accepted = 0;
                    for (int i = 0; i < 40; i++) {
                        long since = rnd.nextInt(2000);
                        List<NewIov> batch = List.of(new NewIov(0, since, ValidityKey.MAX, writer * 1000 + i),
                                new NewIov(1, since, since + 1 + rnd.nextInt(50), writer * 1000 + i));
                        try {
                            store.store(f, batch);
                            accepted++;
                        } catch (StoreException e) {
                            if (e.kind() != StoreException.Kind.OVERLAP) {
                                throw e;
                            }
                        }
                    }
                    return accepted;
                }));
            }
            int accepted = 0;
            for (Future<Integer> r : results) {
                accepted += r.get();
            }
            pool.shutdown();
            for (long ch = 0; ch <= 1; ch++) {
                List<Iov> rows = new ArrayList<>();
                store.browse(f, 0, ValidityKey.MAX, ChannelSelection.channel(ch), null, rows::add);
                for (int i = 1; i < rows.size(); i++) {
                    assertThat(rows.get(i - 1).until()).as("channel %d row %d ends before the next starts", ch, i)
                            .isLessThanOrEqualTo(rows.get(i).since());
                }
            }
            // each accepted batch stored one object in each of the two channels
            long total = store.count(f, 0, ValidityKey.MAX, ChannelSelection.all(), null);
            assertThat(total).isEqualTo(2L * accepted);
            assertThat(accepted).isGreaterThan(0);
        }
    }
}
