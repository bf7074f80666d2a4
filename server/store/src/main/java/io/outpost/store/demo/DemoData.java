package io.outpost.store.demo;

import io.outpost.store.IovStore;
import io.outpost.store.globaltag.GlobalTags;
import io.outpost.store.model.KeyType;
import io.outpost.store.model.NewIov;
import io.outpost.store.model.Node;
import io.outpost.store.model.PayloadSpec;
import io.outpost.store.model.TagLock;
import io.outpost.store.model.ValidityKey;
import io.outpost.store.model.Versioning;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The small demo data set the service loads into an empty embedded database: single- and multi-version
 * folders, time and run-lumi keys, several payload types, user and standard tags, a locked tag, a
 * hierarchical tag and a global tag. Deterministic (fixed seed), so documentation examples stay true.
 */
public final class DemoData {
    /** 2026-01-01T00:00:00Z in ns: the start of the demo's time-keyed IOVs. */
    public static final long T0 = Instant.parse("2026-01-01T00:00:00Z").getEpochSecond() * 1_000_000_000L;
    public static final long HOUR = 3_600_000_000_000L;
    public static final long FIRST_RUN = 300;
    /** The demo's global tag. */
    public static final String GLOBAL_TAG = "DEMO-GT-2026";

    private DemoData() {
    }

    /** True when the database has no folder yet. */
    public static boolean isEmpty(IovStore store) {
        return store.listNodes().stream().noneMatch(Node::isFolder);
    }

    public static void load(IovStore store) {
        Random rnd = new Random(2026);
        store.createFolderSet("/DEMO", "Outpost demo conditions", false);

        Node ped = store.createFolder("/DEMO/Calo/Pedestals", Versioning.SINGLE_VERSION, KeyType.TIME,
                PayloadSpec.parse("mean:Float,rms:Float,nsamples:Int32"), "calorimeter pedestals, hourly", true);
        List<NewIov> rows = new ArrayList<>();
        for (int h = 0; h < 48; h++) {
            for (int ch = 0; ch < 16; ch++) {
                long since = T0 + h * HOUR;
                long until = h == 47 ? ValidityKey.MAX : since + HOUR;
                rows.add(new NewIov(ch, since, until, 100f + rnd.nextInt(1000) / 100f, 1f + rnd.nextInt(100) / 100f,
                        1000 + rnd.nextInt(100)));
            }
        }
        store.store(ped, rows);

        Node hv = store.createFolder("/DEMO/DCS/HV", Versioning.SINGLE_VERSION, KeyType.TIME,
                PayloadSpec.parse("voltage:Double,current:Double,ok:Bool,label:String4k"), "high voltage readings", true);
        for (int ch = 0; ch < 8; ch++) {
            store.createChannel(hv, ch, "HV_" + (char) ('A' + ch), "module " + ch);
        }
        rows.clear();
        for (int i = 0; i < 24; i++) {
            for (int ch = 0; ch < 8; ch++) {
                long since = T0 + i * HOUR / 2;
                rows.add(new NewIov(ch, since, i == 23 ? ValidityKey.MAX : since + HOUR / 2, 1500.0 + rnd.nextGaussian(),
                        0.1 + rnd.nextDouble() / 10, rnd.nextInt(20) != 0, "sector " + ch + " reading " + i));
            }
        }
        store.store(hv, rows);

        Node align = store.createFolder("/DEMO/Align/Global", Versioning.SINGLE_VERSION, KeyType.RUN_LUMI,
                PayloadSpec.parse("dx:Double,dy:Double,dz:Double,matrix:Blob64k"), "global alignment per run", true);
        rows.clear();
        for (int r = 0; r < 5; r++) {
            byte[] matrix = new byte[72];
            rnd.nextBytes(matrix);
            long since = ValidityKey.fromRunLumi(FIRST_RUN + r, 0);
            long until = r == 4 ? ValidityKey.MAX : ValidityKey.fromRunLumi(FIRST_RUN + r + 1, 0);
            rows.add(new NewIov(0, since, until, rnd.nextGaussian() / 10, rnd.nextGaussian() / 10,
                    rnd.nextGaussian() / 10, matrix));
        }
        store.store(align, rows);

        Node gains = store.createFolder("/DEMO/Calo/Gains", Versioning.MULTI_VERSION, KeyType.RUN_LUMI,
                PayloadSpec.parse("gain:Double,status:UChar,comment:String255"), "calorimeter gains, reprocessed", true);
        rows.clear();
        for (int ch = 0; ch < 4; ch++) {
            rows.add(new NewIov(ch, ValidityKey.fromRunLumi(FIRST_RUN, 0), ValidityKey.MAX, 1.0, (short) 0, "initial"));
        }
        store.store(gains, rows);
        store.tagCurrentHead(gains, "GAINS-v1", "first calibration");
        store.setTagLock("GAINS-v1", TagLock.LOCKED);
        rows.clear();
        for (int ch = 0; ch < 4; ch++) {
            rows.add(new NewIov(ch, ValidityKey.fromRunLumi(FIRST_RUN + 1, 0), ValidityKey.fromRunLumi(FIRST_RUN + 3, 0),
                    1.0 + ch / 100.0, (short) 1, "recalibrated runs 301-302"));
        }
        store.store(gains, rows);
        store.tagCurrentHead(gains, "GAINS-v2", "after recalibration");
        store.store(gains, List.of(new NewIov(2, ValidityKey.fromRunLumi(FIRST_RUN + 2, 100),
                ValidityKey.fromRunLumi(FIRST_RUN + 2, 200), new Object[] {0.5, (short) 2, "hot cell test"},
                "GAINS-test", true)));
        store.createTagRelation("DEMO-CALO-2026", "GAINS-v2");
        store.createTagRelation("DEMO-2026", "DEMO-CALO-2026");
        // A global tag (a tag of the root folderset): GAINS-v2 for the gains, HEAD for every other folder.
        new GlobalTags(store).create(GLOBAL_TAG, "demo global tag: recalibrated gains, current conditions elsewhere",
                java.util.Map.of("/DEMO/Calo/Gains", "GAINS-v2"));
    }
}
