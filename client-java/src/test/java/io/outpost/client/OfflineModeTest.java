package io.outpost.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outpost.client.testing.InProcessService;
import io.outpost.store.IovStore;
import io.outpost.store.db.DatabaseConfig;
import io.outpost.store.demo.DemoData;
import io.outpost.store.export.SnapshotExporter;
import io.outpost.store.model.KeyType;
import io.outpost.store.model.NewIov;
import io.outpost.store.model.Node;
import io.outpost.store.model.PayloadSpec;
import io.outpost.store.model.ValidityKey;
import io.outpost.store.model.Versioning;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Offline mode: a client whose server is {@code sqlite:/path/snapshot.db} answers from the file, without a service,
 * exactly what a client talking HTTP to the service on the source database answers, for random queries inside the
 * snapshot's range (and so does the service started on the snapshot); outside it, the client gets NOT_FOUND
 * saying the snapshot does not cover the keys.
 */
class OfflineModeTest {
    static final long FROM = ValidityKey.fromRunLumi(300, 0);
    static final long TO = DemoData.T0 + 30 * DemoData.HOUR;
    static final String GT = "DEMO-2026";

    @TempDir
    static Path dir;
    static InProcessService service;
    static InProcessService snapshotService;
    static OutpostClient online;
    static OutpostClient served;
    static OutpostClient offline;

    @BeforeAll
    static void start() throws java.io.IOException {
        String source = "jdbc:sqlite:" + dir.resolve("source.db");
        Path snapshot = dir.resolve("snapshot.db");
        try (IovStore src = IovStore.open(DatabaseConfig.of(source));
             IovStore out = IovStore.open(DatabaseConfig.of("jdbc:sqlite:" + snapshot))) {
            DemoData.load(src);
            randomHistory(src, new Random(7));
            new SnapshotExporter(src, out).export(new SnapshotExporter.Request(GT, FROM, TO, null),
                    SnapshotExporter.Progress.NONE);
        }
        service = InProcessService.start(source, "--outpost.demo-data=false");
        online = OutpostClient.create(ClientConfig.builder().server(service.url()).build());
        offline = OutpostClient.create(ClientConfig.builder().server("sqlite:" + snapshot).build());
        snapshotService = InProcessService.start("jdbc:sqlite:" + snapshot, "--outpost.demo-data=false");
        served = OutpostClient.create(ClientConfig.builder().server(snapshotService.url()).build());
    }

    /** A multi-version folder with overlapping stores and a user tag, reached by the demo's global tag. */
    static void randomHistory(IovStore s, Random rnd) {
        Node f = s.createFolder("/DEMO/Calo/Random", Versioning.MULTI_VERSION, KeyType.TIME,
                PayloadSpec.parse("v:Int32,x:Double,ok:Bool,label:String255,n:UInt63"), "", false);
        for (int i = 0; i < 60; i++) {
            List<NewIov> batch = new ArrayList<>();
            for (int k = 0; k < 3; k++) {
                long since = DemoData.T0 + rnd.nextInt(40) * DemoData.HOUR + rnd.nextInt(1000);
                long until = rnd.nextInt(6) == 0 ? ValidityKey.MAX : since + (1 + rnd.nextInt(5)) * DemoData.HOUR;
                NewIov o = new NewIov(rnd.nextInt(5), since, until, i, rnd.nextDouble(), rnd.nextBoolean(), "r" + i,
                        (long) rnd.nextInt(1 << 30));
                batch.add(i % 4 == 0 ? o.withUserTag("RANDOM-U", false) : o);
            }
            s.store(f, batch);
        }
        s.createTagRelation("DEMO-CALO-2026", "RANDOM-U");
    }

    @AfterAll
    static void stop() {
        if (offline != null) {
            offline.close();
        }
        if (online != null) {
            online.close();
        }
        if (served != null) {
            served.close();
        }
        if (snapshotService != null) {
            snapshotService.close();
        }
        if (service != null) {
            service.close();
        }
    }

    @Test
    void randomQueriesInsideTheRangeGiveTheSameRowsOfflineAsOnline() throws Exception {
        Random rnd = new Random(11);
        assertThat(offline.nodes()).isEqualTo(online.nodes());
        assertThat(offline.resolveTag("/DEMO/Calo/Random", GT)).isEqualTo(online.resolveTag("/DEMO/Calo/Random", GT));
        assertThat(offline.resolveTag("/DEMO/Calo/Gains", GT)).isEqualTo(online.resolveTag("/DEMO/Calo/Gains", GT));
        String[][] reads = {{"/DEMO/Calo/Random", GT}, {"/DEMO/Calo/Random", "RANDOM-U"}, {"/DEMO/Calo/Gains", GT},
            {"/DEMO/Calo/Pedestals", OutpostClient.HEAD}, {"/DEMO/DCS/HV", OutpostClient.HEAD}};
        long rows = 0;
        for (String[] r : reads) {
            String folder = r[0];
            String tag = r[1];
            assertThat(offline.channels(folder)).isEqualTo(online.channels(folder));
            boolean runLumi = folder.endsWith("Gains");
            long lo = runLumi ? FROM : DemoData.T0;
            long hi = runLumi ? ValidityKey.fromRunLumi(320, 0) : TO;
            for (int q = 0; q < 15; q++) {
                long t1 = lo + (long) (rnd.nextDouble() * (hi - lo));
                long t2 = rnd.nextInt(4) == 0 ? hi : Math.min(hi, t1 + (long) (rnd.nextDouble() * (hi - t1) / 4));
                ChannelSelection sel = switch (rnd.nextInt(3)) {
                    case 0 -> ChannelSelection.all();
                    case 1 -> ChannelSelection.channel(rnd.nextInt(5));
                    default -> ChannelSelection.parse("0,2-3");
                };
                Order order = Order.values()[rnd.nextInt(Order.values().length)];
                List<Iov> expected = online.browse(folder, tag, t1, t2, sel, order);
                rows += expected.size();
                assertThat(offline.browse(folder, tag, t1, t2, sel, order)).as("%s %s [%d, %d] %s", folder, tag, t1, t2, sel)
                        .isEqualTo(expected);
                assertThat(served.browse(folder, tag, t1, t2, sel, order)).as("served %s %s [%d, %d] %s", folder, tag, t1,
                        t2, sel).isEqualTo(expected);
                assertThat(served.count(folder, tag, t1, t2, sel)).isEqualTo(expected.size());
                assertThat(offline.count(folder, tag, t1, t2, sel)).isEqualTo(online.count(folder, tag, t1, t2, sel));
                assertThat(offline.objectsAt(folder, tag, sel, t1)).isEqualTo(online.objectsAt(folder, tag, sel, t1));
            }
        }
        assertThat(rows).as("rows compared").isGreaterThan(100);
    }

    @Test
    void queriesOutsideTheRangeSayTheSnapshotDoesNotCoverThem() throws Exception {
        long after = TO + DemoData.HOUR;
        assertThat(online.objectsAt("/DEMO/Calo/Pedestals", OutpostClient.HEAD, ChannelSelection.all(), after)).isNotEmpty();
        assertThatThrownBy(() -> offline.objectsAt("/DEMO/Calo/Pedestals", OutpostClient.HEAD, ChannelSelection.all(), after))
                .isInstanceOf(OutpostException.class).hasMessageContaining("covers keys")
                .extracting(e -> ((OutpostException) e).kind()).isEqualTo(OutpostException.Kind.NOT_FOUND);
        assertThatThrownBy(() -> served.count("/DEMO/Calo/Pedestals", OutpostClient.HEAD, DemoData.T0, after,
                ChannelSelection.all())).isInstanceOf(OutpostException.class).hasMessageContaining("covers keys")
                .extracting(e -> ((OutpostException) e).kind()).isEqualTo(OutpostException.Kind.NOT_FOUND);
        assertThatThrownBy(() -> offline.count("/DEMO/Calo/Random", OutpostClient.HEAD, DemoData.T0, TO, ChannelSelection.all()))
                .isInstanceOf(OutpostException.class).hasMessageContaining("not its HEAD");
        assertThatThrownBy(() -> OutpostClient.create(ClientConfig.builder().server("sqlite:" + dir.resolve("none.db")).build()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no snapshot file");
    }
}
