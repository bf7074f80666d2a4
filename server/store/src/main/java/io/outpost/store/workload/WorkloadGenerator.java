package io.outpost.store.workload;

import io.outpost.store.IovStore;
import io.outpost.store.model.NewIov;
import io.outpost.store.model.Node;
import io.outpost.store.model.PayloadField;
import io.outpost.store.model.PayloadSpec;
import io.outpost.store.model.ValidityKey;
import io.outpost.store.model.Versioning;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.LongConsumer;

/**
 * Writes a reference workload through the store's bulk writer, with random payloads (constant strings would
 * let the network layer compress them away, as the ATLAS tests found). Deterministic for a given seed.
 * The last IOV of each channel is open-ended, as COOL's single-version tests store them.
 */
public final class WorkloadGenerator {
    public static final int BATCH = 10_000;
    private static final char[] ALPHABET =
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".toCharArray();

    private final IovStore store;
    private final SplittableRandom rnd;

    public WorkloadGenerator(IovStore store, long seed) {
        this.store = store;
        this.rnd = new SplittableRandom(seed);
    }

    /** A seeded generator that writes through a sink of its own rather than a store. */
    public WorkloadGenerator(long seed) {
        this(null, seed);
    }

    /** Creates the workload's folders and fills them; {@code progress} receives the number of IOVs written so far. */
    public List<Node> populate(Workload w, double scale, LongConsumer progress) {
        return fill(w, scale, path -> store.createFolder(path, Versioning.SINGLE_VERSION, w.keyType(), w.payloadSpec(),
                description(w), true), store::store, progress);
    }

    /**
     * The same folders and IOVs written through any writer (e.g. the service's write API): {@code createFolder}
     * receives each folder's path, {@code store} each batch of at most {@link #BATCH} IOVs for that path.
     */
    public void populate(Workload w, double scale, java.util.function.Consumer<String> createFolder,
                         java.util.function.BiConsumer<String, List<NewIov>> store, LongConsumer progress) {
        fill(w, scale, path -> {
            createFolder.accept(path);
            return path;
        }, store, progress);
    }

    /** The description every workload folder gets. */
    public static String description(Workload w) {
        return "reference workload " + w.label();
    }

    private <F> List<F> fill(Workload w, double scale, java.util.function.Function<String, F> createFolder,
                             java.util.function.BiConsumer<F, List<NewIov>> store, LongConsumer progress) {
        List<F> folders = new ArrayList<>();
        long written = 0;
        int channels = w.channels(scale);
        int iovs = w.iovsPerChannel(scale);
        PayloadSpec spec = w.payloadSpec();
        for (int f = 0; f < w.folders(scale); f++) {
            F folder = createFolder.apply(w.folderPath(f));
            folders.add(folder);
            List<NewIov> batch = new ArrayList<>(BATCH);
            // IOV-major order: each flush closes the previous open IOV of every channel, as a live writer would.
            for (int i = 0; i < iovs; i++) {
                for (int ch = 0; ch < channels; ch++) {
                    long since = Workload.T0 + ch * w.staggerNanos() + i * w.iovLength();
                    long until = i == iovs - 1 ? ValidityKey.MAX
                            : Workload.T0 + ch * w.staggerNanos() + (i + 1) * w.iovLength();
                    batch.add(new NewIov(ch, since, until, payload(spec, w.stringLength())));
                    if (batch.size() == BATCH) {
                        store.accept(folder, batch);
                        written += batch.size();
                        progress.accept(written);
                        batch = new ArrayList<>(BATCH);
                    }
                }
            }
            if (!batch.isEmpty()) {
                store.accept(folder, batch);
                written += batch.size();
                progress.accept(written);
            }
        }
        return folders;
    }

    /** Random values for every field of the spec; strings get {@code stringLength} random characters. */
    public Object[] payload(PayloadSpec spec, int stringLength) {
        Object[] v = new Object[spec.size()];
        for (int i = 0; i < v.length; i++) {
            PayloadField f = spec.field(i);
            v[i] = switch (f.type()) {
                case BOOL -> rnd.nextBoolean();
                case UCHAR -> (short) rnd.nextInt(256);
                case INT16 -> (short) rnd.nextInt(Short.MIN_VALUE, Short.MAX_VALUE + 1);
                case UINT16 -> rnd.nextInt(65536);
                case INT32 -> rnd.nextInt();
                case UINT32 -> rnd.nextLong(0x1_0000_0000L);
                case UINT63 -> rnd.nextLong(Long.MAX_VALUE);
                case INT64 -> rnd.nextLong();
                case FLOAT -> (float) rnd.nextDouble(-1e6, 1e6);
                case DOUBLE -> rnd.nextDouble(-1e6, 1e6);
                case STRING255, STRING4K, STRING64K, STRING16M -> randomString(Math.min(stringLength, f.type().maxBytes()));
                case BLOB64K, BLOB16M -> randomBytes(Math.min(stringLength, f.type().maxBytes()));
            };
        }
        return v;
    }

    public String randomString(int n) {
        char[] c = new char[n];
        for (int i = 0; i < n; i++) {
            c[i] = ALPHABET[rnd.nextInt(ALPHABET.length)];
        }
        return new String(c);
    }

    private byte[] randomBytes(int n) {
        byte[] b = new byte[n];
        rnd.nextBytes(b);
        return b;
    }
}
