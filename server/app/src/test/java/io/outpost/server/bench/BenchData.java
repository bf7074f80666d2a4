package io.outpost.server.bench;

import io.outpost.store.IovStore;
import io.outpost.store.model.ChannelSelection;
import io.outpost.store.model.Iov;
import io.outpost.store.model.KeyType;
import io.outpost.store.model.NewIov;
import io.outpost.store.model.Node;
import io.outpost.store.model.PayloadSpec;
import io.outpost.store.model.ValidityKey;
import io.outpost.store.model.Versioning;
import io.outpost.store.read.IovReader;
import io.outpost.store.workload.Workload;
import io.outpost.store.workload.WorkloadGenerator;
import java.util.ArrayList;
import java.util.List;

/** Folders sized for the service benchmarks: a ~1 KB answer, a likeLuis1iov (~600 KB) answer, coolBrowse. */
final class BenchData {
    static final String SMALL = "/BENCH/small";
    static final String LUIS = "/LOAD/likeLuis1iov";
    static final String BROWSE = "/LOAD/coolBrowse";

    private BenchData() {
    }

    static void load(IovStore store, boolean withCoolBrowse) {
        Node small = store.createFolder(SMALL, Versioning.SINGLE_VERSION, KeyType.TIME, PayloadSpec.parse("s:String255"),
                "", true);
        WorkloadGenerator gen = new WorkloadGenerator(store, 3);
        List<NewIov> rows = new ArrayList<>();
        for (int ch = 0; ch < 12; ch++) {
            rows.add(new NewIov(ch, Workload.T0, ValidityKey.MAX, gen.randomString(60)));
        }
        store.store(small, rows);
        gen.populate(Workload.LIKE_LUIS_1IOV, 1.0, n -> { });
        if (withCoolBrowse) {
            gen.populate(Workload.COOL_BROWSE, 1.0, n -> { });
        }
    }

    /** The store's own rows of a folder layer (tag null: the HEAD) at key t, each as text: what an answer is checked against. */
    static List<List<String>> rowsAt(IovStore store, String folder, String tag, long t) {
        Node f = store.folder(folder);
        List<List<String>> rows = new ArrayList<>();
        store.browse(IovReader.spec(f, store.layer(f, tag), t, t, ChannelSelection.all()), iov -> rows.add(strings(iov)));
        return rows;
    }

    private static List<String> strings(Iov iov) {
        List<String> out = new ArrayList<>(List.of(String.valueOf(iov.channelId()), String.valueOf(iov.since()),
                String.valueOf(iov.until())));
        for (Object v : iov.payload()) {
            out.add(String.valueOf(v));
        }
        return out;
    }
}
