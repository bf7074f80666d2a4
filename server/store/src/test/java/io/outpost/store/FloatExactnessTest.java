package io.outpost.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.store.db.Database;
import io.outpost.store.db.DatabaseConfig;
import io.outpost.store.export.SnapshotExporter;
import io.outpost.store.export.SnapshotSync;
import io.outpost.store.model.KeyType;
import io.outpost.store.model.NewIov;
import io.outpost.store.model.Node;
import io.outpost.store.model.PayloadSpec;
import io.outpost.store.model.ValidityKey;
import io.outpost.store.model.Versioning;
import io.outpost.store.schema.SchemaManager;
import io.outpost.store.testing.Backends;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Float and Double payloads come back bit for bit, written one IOV at a time and in a batch, read from the store and
 * from a SQLite snapshot made by export and by sync. (MariaDB's text protocol sends a FLOAT with six digits.)
 * Finite values only: NaN and infinities are not portable across the backends (MariaDB refuses them).
 */
class FloatExactnessTest {

    /** Extremes, a subnormal and values that need every digit (not -0.0: SQLite and PostgreSQL read it as 0.0). */
    private static final float[] FLOATS = {Float.MAX_VALUE, -Float.MAX_VALUE, Float.MIN_VALUE, Float.MIN_NORMAL,
        0.0f, 1.2345678f, -9.876543e-21f, 16777216f, 0.1f};
    private static final double[] DOUBLES = {Double.MAX_VALUE, -Double.MAX_VALUE, Double.MIN_VALUE, Double.MIN_NORMAL,
        0.0, 1.2345678901234567, -9.87654321098765e-300, 0.1 + 0.2, 0.1};

    @ParameterizedTest
    @EnumSource(Backends.class)
    void floatsAndDoublesComeBackBitForBit(Backends backend, @TempDir Path dir) {
        try (IovStore store = backend.freshStore("float_exact")) {
            Node single = store.createFolder("/F/single", Versioning.SINGLE_VERSION, KeyType.TIME,
                    PayloadSpec.parse("f:Float,d:Double"), "", true);
            Node bulk = store.createFolder("/F/bulk", Versioning.MULTI_VERSION, KeyType.TIME,
                    PayloadSpec.parse("f:Float,d:Double"), "", true);
            for (int i = 0; i < FLOATS.length; i++) {
                store.store(single, List.of(new NewIov(i, 0, ValidityKey.MAX, FLOATS[i], DOUBLES[i])));
            }
            assertExact(store, "/F/single");

            DatabaseConfig snapshot = DatabaseConfig.of("jdbc:sqlite:" + dir.resolve("snap.db"));
            try (IovStore target = IovStore.open(snapshot)) {
                new SnapshotExporter(store, target).export(new SnapshotExporter.Request("HEAD", 0, ValidityKey.MAX,
                        null), SnapshotExporter.Progress.NONE);
                assertExact(target, "/F/single");
            }

            List<NewIov> batch = new ArrayList<>();
            for (int i = 0; i < FLOATS.length; i++) {
                batch.add(new NewIov(i, 0, ValidityKey.MAX, FLOATS[i], DOUBLES[i]));
            }
            store.store(bulk, batch);
            assertExact(store, "/F/bulk");

            try (Database snap = Database.open(snapshot)) {
                new SchemaManager(snap).migrate();
                new SnapshotSync(store, snap).sync(SnapshotExporter.Progress.NONE);
            }
            try (IovStore target = IovStore.open(snapshot)) {
                assertExact(target, "/F/bulk");
            }
        }
    }

    private static void assertExact(IovStore store, String path) {
        Node folder = store.folder(path);
        for (int i = 0; i < FLOATS.length; i++) {
            Object[] payload = store.findObject(folder, 1, i, null).payload();
            assertThat(Float.floatToRawIntBits((Float) payload[0])).as("%s channel %d: Float %s read as %s", path, i,
                    FLOATS[i], payload[0]).isEqualTo(Float.floatToRawIntBits(FLOATS[i]));
            assertThat(Double.doubleToRawLongBits((Double) payload[1])).as("%s channel %d: Double %s read as %s", path,
                    i, DOUBLES[i], payload[1]).isEqualTo(Double.doubleToRawLongBits(DOUBLES[i]));
        }
    }
}
