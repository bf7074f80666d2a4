package io.outpost.store.workload;

import io.outpost.store.IovStore;
import io.outpost.store.globaltag.GlobalTags;
import io.outpost.store.model.KeyType;
import io.outpost.store.model.NewIov;
import io.outpost.store.model.Node;
import io.outpost.store.model.PayloadSpec;
import io.outpost.store.model.ValidityKey;
import io.outpost.store.model.Versioning;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntConsumer;

/**
 * The many-folder data set of the at-scale measurements: {@code 100 × scale} folders (10,000 at scale 100, the size
 * of an ATLAS conditions database), each small, in 50 foldersets per half. One folder in three is multi-version
 * with one tag, one in four has run-lumi keys, 1–8 channels and 2–6 IOVs per channel, so the data grows with the
 * folder count only. The global tag {@link #GLOBAL_TAG} chooses the tag of every multi-version folder under
 * {@link #TAGGED} (half of the folders); its state and snapshots over that subtree cover {@code 50 × scale} folders.
 * Deterministic for a given seed.
 */
public final class ManyFolders {
    public static final String LABEL = "manyFolders";
    public static final String ROOT = "/SCALE";
    /** The half of the folders that the global tag chooses tags for. */
    public static final String TAGGED = ROOT + "/GT";
    public static final String GLOBAL_TAG = "SCALE-GT";
    /** Time IOVs are one hour long from {@link Workload#T0}; run-lumi IOVs one run each from {@link #FIRST_RUN}. */
    public static final long HOUR = 3_600_000_000_000L;
    public static final long FIRST_RUN = 300;
    public static final int MAX_IOVS_PER_CHANNEL = 6;
    private static final PayloadSpec PAYLOAD = PayloadSpec.parse("v:Int32,s:String255");
    private static final int STRING_LENGTH = 40;

    private final IovStore store;
    private final WorkloadGenerator random;

    public ManyFolders(IovStore store, long seed) {
        this.store = store;
        this.random = new WorkloadGenerator(seed);
    }

    public static int folders(double scale) {
        return (int) Math.max(2, Math.round(100 * scale));
    }

    /** The path of folder {@code i} of {@code n}: the first half under {@link #TAGGED}, the rest under /SCALE/HEAD. */
    public static String path(int i, int n) {
        return String.format("%s/%s/D%02d/F%05d", ROOT, i < n / 2 ? "GT" : "HEAD", i % 50, i);
    }

    public static Versioning versioning(int i) {
        return i % 3 == 0 ? Versioning.MULTI_VERSION : Versioning.SINGLE_VERSION;
    }

    public static KeyType keyType(int i) {
        return i % 4 == 0 ? KeyType.RUN_LUMI : KeyType.TIME;
    }

    public static int channels(int i) {
        return 1 + i % 8;
    }

    public static int iovsPerChannel(int i) {
        return 2 + i % (MAX_IOVS_PER_CHANNEL - 1);
    }

    /** The tag of a multi-version folder. */
    public static String tagOf(int i) {
        return String.format("SCALE-F%05d-v1", i);
    }

    /** The start of IOV {@code k} of a folder with {@code keys} (every channel's IOVs start together). */
    public static long since(KeyType keys, int k) {
        return keys == KeyType.RUN_LUMI ? ValidityKey.fromRunLumi(FIRST_RUN + k, 0) : Workload.T0 + k * HOUR;
    }

    /** Creates, fills and tags every folder, then the global tag; {@code progress} receives the folders done. */
    public List<Node> populate(double scale, IntConsumer progress) {
        int n = folders(scale);
        List<Node> out = new ArrayList<>(n);
        Map<String, String> choices = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            String path = path(i, n);
            Node f = store.createFolder(path, versioning(i), keyType(i), PAYLOAD, LABEL + " folder " + i, true);
            int iovs = iovsPerChannel(i);
            List<NewIov> rows = new ArrayList<>();
            for (int k = 0; k < iovs; k++) {
                for (int ch = 0; ch < channels(i); ch++) {
                    long until = k == iovs - 1 ? ValidityKey.MAX : since(keyType(i), k + 1);
                    rows.add(new NewIov(ch, since(keyType(i), k), until, random.payload(PAYLOAD, STRING_LENGTH)));
                }
            }
            store.store(f, rows);
            if (f.isMultiVersion()) {
                store.tagCurrentHead(f, tagOf(i), "");
                if (i < n / 2) {
                    choices.put(path, tagOf(i));
                }
            }
            out.add(f);
            progress.accept(i + 1);
        }
        new GlobalTags(store).create(GLOBAL_TAG, LABEL + " global tag over " + TAGGED, choices);
        return out;
    }
}
