package io.outpost.store.export;

import static io.outpost.store.export.SnapshotTestSupport.GT;
import static io.outpost.store.export.SnapshotTestSupport.MAXK;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outpost.store.IovStore;
import io.outpost.store.StoreException;
import io.outpost.store.export.SnapshotTestSupport.Backend;
import io.outpost.store.model.ChannelSelection;
import io.outpost.store.model.NewIov;
import io.outpost.store.model.Node;
import io.outpost.store.read.TagResolver;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Random histories exported over random key ranges: every browse, count and at-time read inside the range gives
 * the same rows from the source and from the snapshot; reads outside it, or of a layer the snapshot does not
 * hold, say so; writes are refused. Sources on SQLite, PostgreSQL and MariaDB,
 * snapshots to SQLite, PostgreSQL and MariaDB.
 */
class SnapshotEqualityTest {

    static Stream<Arguments> cases() {
        List<Arguments> out = new ArrayList<>();
        for (long seed : new long[] {1, 2, 3}) {
            out.add(Arguments.of(Backend.SQLITE, Backend.SQLITE, seed));
        }
        out.add(Arguments.of(Backend.POSTGRESQL, Backend.SQLITE, 4L));
        out.add(Arguments.of(Backend.POSTGRESQL, Backend.SQLITE, 5L));
        out.add(Arguments.of(Backend.SQLITE, Backend.POSTGRESQL, 6L));
        out.add(Arguments.of(Backend.MARIADB, Backend.SQLITE, 7L));
        out.add(Arguments.of(Backend.SQLITE, Backend.MARIADB, 8L));
        return out.stream();
    }

    @ParameterizedTest(name = "{0} to {1}, seed {2}")
    @MethodSource("cases")
    void snapshotAnswersLikeTheSourceInsideItsRange(Backend from, Backend to, long seed, @TempDir Path dir) {
        Random rnd = new Random(seed);
        int[] counter = new int[2];
        try (IovStore source = IovStore.open(SnapshotTestSupport.config(from, dir, "src" + seed))) {
            SnapshotTestSupport.createTree(source);
            SnapshotTestSupport.randomWrites(source, rnd, 40, counter);
            SnapshotTestSupport.createGlobalTag(source, rnd, counter);
            SnapshotTestSupport.randomWrites(source, rnd, 20, counter);

            long k1 = rnd.nextInt(60);
            long k2 = rnd.nextInt(4) == 0 ? MAXK : k1 + rnd.nextInt(80);
            var snapConfig = SnapshotTestSupport.config(to, dir, "snap" + seed);
            try (IovStore target = IovStore.open(snapConfig)) {
                SnapshotExporter.Result r = new SnapshotExporter(source, target)
                        .export(new SnapshotExporter.Request(GT, k1, k2, null), SnapshotExporter.Progress.NONE);
                assertThat(r.folders()).isEqualTo(4);
            }
            // Reopened as a service would open it: now a read-only snapshot.
            try (IovStore snap = IovStore.open(snapConfig)) {
                assertThat(snap.snapshotCoverage()).isNotNull();
                long compared = 0;
                for (String path : List.of("/A/B/mv1", "/A/mv2", "/A/B/mv3", "/A/sv")) {
                    Node fs = source.folder(path);
                    Node ft = snap.folder(path);
                    String tag = path.equals("/A/B/mv1") || path.equals("/A/mv2") ? GT : "HEAD";
                    compared += compareInside(source, fs, snap, ft, tag, k1, k2, rnd);
                    if (!tag.equals("HEAD")) {
                        String own = source.resolveTag(fs, GT).name();
                        assertThat(snap.resolveTag(ft, GT).name()).isEqualTo(own);
                        compared += compareInside(source, fs, snap, ft, own, k1, k2, rnd);
                        assertThatThrownBy(() -> snap.count(ft, k1, k2, ChannelSelection.all(), "HEAD"))
                                .isInstanceOf(StoreException.class).hasMessageContaining("not its HEAD")
                                .extracting(e -> ((StoreException) e).kind()).isEqualTo(StoreException.Kind.NOT_COVERED);
                    }
                    assertThat(snap.channels(ft)).isEqualTo(source.channels(fs));
                    assertThat(snap.modificationStamp(ft)).isEqualTo(source.modificationStamp(fs));
                    if (k1 > 0) {
                        assertNotCovered(() -> snap.count(ft, k1 - 1, k1, ChannelSelection.all(), tag));
                        assertNotCovered(() -> snap.findObjects(ft, 0, ChannelSelection.all(), tag));
                    }
                    if (k2 < MAXK) {
                        assertNotCovered(() -> snap.browse(ft, k1, k2 + 1, ChannelSelection.all(), tag, iov -> { }));
                    }
                }
                assertThat(compared).as("rows compared").isGreaterThan(20);
                Node mv3 = snap.folder("/A/B/mv3");
                assertThatThrownBy(() -> snap.store(mv3, List.of(new NewIov(0, k1, k1 + 1, 1, "x", 1.0, true))))
                        .isInstanceOf(StoreException.class).hasMessageContaining("read-only")
                        .extracting(e -> ((StoreException) e).kind()).isEqualTo(StoreException.Kind.READ_ONLY);
                assertThatThrownBy(() -> snap.createFolder("/new", null, null, null, "", false))
                        .extracting(e -> ((StoreException) e).kind()).isEqualTo(StoreException.Kind.READ_ONLY);
            }
        }
    }

    private static void assertNotCovered(Runnable read) {
        assertThatThrownBy(read::run).isInstanceOf(StoreException.class).hasMessageContaining("covers keys")
                .extracting(e -> ((StoreException) e).kind()).isEqualTo(StoreException.Kind.NOT_COVERED);
    }

    /** Random browse, count and at-time reads inside [k1, k2], compared row for row. */
    static long compareInside(IovStore source, Node fs, IovStore snap, Node ft, String tag, long k1, long k2, Random rnd) {
        long rows = 0;
        long span = Math.min(k2 - k1, 200);
        for (int q = 0; q < 25; q++) {
            long t1 = k1 + (span == 0 ? 0 : (long) (rnd.nextDouble() * span));
            long t2 = rnd.nextInt(6) == 0 ? k2 : Math.min(k2, t1 + rnd.nextInt(30));
            ChannelSelection sel = SnapshotTestSupport.randomSelection(rnd);
            List<String> expected = SnapshotTestSupport.browse(source, fs, t1, t2, sel, tag);
            rows += expected.size();
            assertThat(SnapshotTestSupport.browse(snap, ft, t1, t2, sel, tag))
                    .as("%s browse [%d, %d] %s in %s", fs.path(), t1, t2, sel, tag).isEqualTo(expected);
            assertThat(snap.count(ft, t1, t2, sel, tag)).isEqualTo(source.count(fs, t1, t2, sel, tag))
                    .isEqualTo(expected.size());
            List<String> at = source.findObjects(fs, t1, sel, tag).stream().map(SnapshotTestSupport::text).toList();
            assertThat(snap.findObjects(ft, t1, sel, tag).stream().map(SnapshotTestSupport::text).toList())
                    .as("%s at %d %s in %s", fs.path(), t1, sel, tag).isEqualTo(at);
            IovStore.ReadResult rs = source.read(fs, tag, t1, t2, sel, null, true);
            IovStore.ReadResult rt = snap.read(ft, tag, t1, t2, sel, null, true);
            assertThat(rt.rows()).isEqualTo(rs.rows());
            assertThat(rt.selectedChannels()).isEqualTo(rs.selectedChannels());
            assertThat(rt.tag() == null ? null : rt.tag().name()).isEqualTo(rs.tag() == null ? null : rs.tag().name());
        }
        assertThat(TagResolver.isHead(tag) || snap.tag(tag) != null).isTrue();
        return rows;
    }
}
