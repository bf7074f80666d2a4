package io.outpost.store.export;

import static io.outpost.store.export.SnapshotTestSupport.GT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outpost.store.IovStore;
import io.outpost.store.StoreException;
import io.outpost.store.db.Database;
import io.outpost.store.db.DatabaseConfig;
import io.outpost.store.export.SnapshotTestSupport.Backend;
import io.outpost.store.model.ChannelSelection;
import io.outpost.store.model.NewIov;
import io.outpost.store.model.Node;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Sync after random further writes gives exactly what a fresh export gives; unchanged folders are not copied. */
class SnapshotSyncTest {

    @ParameterizedTest(name = "{0} seed {1}")
    @CsvSource({"SQLITE, 11", "SQLITE, 12", "SQLITE, 13", "POSTGRESQL, 14", "MARIADB, 15"})
    void syncEqualsFreshExport(Backend sourceBackend, long seed, @TempDir Path dir) throws Exception {
        Random rnd = new Random(seed);
        int[] counter = new int[2];
        try (IovStore source = IovStore.open(SnapshotTestSupport.config(sourceBackend, dir, "src" + seed))) {
            SnapshotTestSupport.createTree(source);
            SnapshotTestSupport.randomWrites(source, rnd, 30, counter);
            SnapshotTestSupport.createGlobalTag(source, rnd, counter);
            long k1 = rnd.nextInt(40);
            long k2 = k1 + 20 + rnd.nextInt(60);
            SnapshotExporter.Request request = new SnapshotExporter.Request(GT, k1, k2, "/A/**");
            DatabaseConfig synced = SnapshotTestSupport.config(Backend.SQLITE, dir, "synced");
            export(source, synced, request);

            // Nothing changed: sync copies nothing.
            try (Database snap = SnapshotTestSupport.openMigrated(synced)) {
                SnapshotSync.Result r = new SnapshotSync(source, snap).sync(SnapshotExporter.Progress.NONE);
                assertThat(r.copied()).isZero();
                assertThat(r.unchanged()).isEqualTo(4);
            }

            SnapshotTestSupport.randomWrites(source, rnd, 30, counter);
            // the global tag now also reaches mv3 (copied as its HEAD so far), and a new folder appears
            SnapshotTestSupport.tagMv3AndAddAFolder(source, k1);
            source.store(source.folder(SnapshotTestSupport.SV), List.of(new NewIov(1, 100_000, SnapshotTestSupport.MAXK,
                    1, "late", 2.0, false)));
            try (Database snap = SnapshotTestSupport.openMigrated(synced)) {
                SnapshotSync.Result r = new SnapshotSync(source, snap).sync(SnapshotExporter.Progress.NONE);
                assertThat(r.copied()).isGreaterThanOrEqualTo(3);
            }
            try (IovStore snap = IovStore.open(synced)) {
                assertThat(snap.resolveTag(snap.folder("/A/B/mv3"), GT).name()).isEqualTo("MV3-NOW");
                assertThat(snap.count(snap.folder("/A/added"), k1, k2, ChannelSelection.all(), null)).isEqualTo(1);
            }

            DatabaseConfig fresh = SnapshotTestSupport.config(Backend.SQLITE, dir, "fresh");
            export(source, fresh, request);
            try (Database a = SnapshotTestSupport.openMigrated(synced); Database b = SnapshotTestSupport.openMigrated(fresh)) {
                List<String> da = SnapshotTestSupport.dump(a);
                assertThat(da).hasSizeGreaterThan(50);
                assertThat(da).isEqualTo(SnapshotTestSupport.dump(b));
            }
        }
    }

    @Test
    void lockedTagIsNotCopiedTwice(@TempDir Path dir) {
        Random rnd = new Random(21);
        int[] counter = new int[2];
        try (IovStore source = IovStore.open(SnapshotTestSupport.config(Backend.SQLITE, dir, "src"))) {
            SnapshotTestSupport.createTree(source);
            SnapshotTestSupport.randomWrites(source, rnd, 20, counter);
            SnapshotTestSupport.createGlobalTag(source, rnd, counter);
            source.setTagLock(source.resolveTag(source.folder("/A/B/mv1"), GT).name(), io.outpost.store.model.TagLock.LOCKED);
            DatabaseConfig snapConfig = SnapshotTestSupport.config(Backend.SQLITE, dir, "snap");
            export(source, snapConfig, new SnapshotExporter.Request(GT, 0, 200, "/A/B/mv1"));
            // HEAD writes change the folder's generation, but not its locked tag.
            source.store(source.folder("/A/B/mv1"), List.of(new NewIov(0, 1, 2, 1, "x", 1.0, true)));
            AtomicInteger copiedRows = new AtomicInteger();
            try (Database snap = SnapshotTestSupport.openMigrated(snapConfig)) {
                SnapshotSync.Result r = new SnapshotSync(source, snap).sync(new SnapshotExporter.Progress() {
                    @Override
                    public void folder(Node folder, int index, int total) {
                    }

                    @Override
                    public void iovs(long count) {
                        copiedRows.addAndGet((int) count);
                    }
                });
                assertThat(r.copied()).isZero();
                assertThat(r.unchanged()).isEqualTo(1);
                assertThat(copiedRows).hasValue(0);
            }
        }
    }

    @Test
    void exportRefusesANonEmptyTargetAndSyncRefusesANonSnapshot(@TempDir Path dir) {
        try (IovStore source = IovStore.open(SnapshotTestSupport.config(Backend.SQLITE, dir, "src"));
             IovStore other = IovStore.open(SnapshotTestSupport.config(Backend.SQLITE, dir, "other"))) {
            SnapshotTestSupport.createTree(source);
            SnapshotTestSupport.createTree(other);
            assertThatThrownBy(() -> new SnapshotExporter(source, other).export(
                    new SnapshotExporter.Request("HEAD", 0, 10, null), SnapshotExporter.Progress.NONE))
                    .isInstanceOf(StoreException.class).hasMessageContaining("must be empty");
            assertThatThrownBy(() -> new SnapshotSync(source, other.database()).sync(SnapshotExporter.Progress.NONE))
                    .isInstanceOf(StoreException.class).hasMessageContaining("not a snapshot");
            assertThatThrownBy(() -> new SnapshotExporter.Request("HEAD", 10, 0, null))
                    .isInstanceOf(StoreException.class).hasMessageContaining("key range [10, 0] is empty");
            assertThatThrownBy(() -> new SnapshotExporter(source, other).export(
                    new SnapshotExporter.Request("NO-SUCH-TAG", 0, 10, null), SnapshotExporter.Progress.NONE))
                    .isInstanceOf(StoreException.class).hasMessageContaining("no tag 'NO-SUCH-TAG'");
            assertThat(other.count(other.folder("/A/sv"), 0, 10, ChannelSelection.all(), "HEAD")).isZero();
        }
    }

    static void export(IovStore source, DatabaseConfig to, SnapshotExporter.Request request) {
        try (IovStore target = IovStore.open(to)) {
            new SnapshotExporter(source, target).export(request, SnapshotExporter.Progress.NONE);
        }
    }
}
