package io.outpost.integration;

import io.outpost.store.IovStore;
import io.outpost.store.db.DatabaseConfig;
import io.outpost.store.model.KeyType;
import io.outpost.store.model.NewIov;
import io.outpost.store.model.Node;
import io.outpost.store.model.PayloadSpec;
import io.outpost.store.model.ValidityKey;
import io.outpost.store.model.Versioning;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Conditions written through the store API before the service starts on the same SQLite file. */
final class TestData {
    /** 4 channels, IOVs [0, 1000) closed and [1000, MAX) open-ended: at t < 1000 the answer is closed. */
    static final String COND = "/IT/Cond";
    /** One channel of {@link #BIG_ROWS} rows of 60,000 characters: a browse answer over 100 MB. */
    static final String BIG = "/IT/Big";
    static final int BIG_ROWS = 1_750;
    static final int BIG_STRING = 60_000;

    private TestData() {
    }

    static Path freshDatabase(String name) {
        Path db = Layout.target().resolve("db").resolve(name + ".db");
        try {
            Files.createDirectories(db.getParent());
            for (String suffix : List.of("", "-wal", "-shm", "-journal")) {
                Files.deleteIfExists(Path.of(db + suffix));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return db;
    }

    static IovStore open(Path db) {
        return IovStore.open(DatabaseConfig.of("jdbc:sqlite:" + db.toAbsolutePath()));
    }

    static void writeCond(IovStore store) {
        Node f = store.createFolder(COND, Versioning.SINGLE_VERSION, KeyType.TIME, PayloadSpec.parse("x:Int32,s:String255"),
                "integration tests", true);
        List<NewIov> iovs = new ArrayList<>();
        for (int ch = 0; ch < 4; ch++) {
            iovs.add(new NewIov(ch, 0, 1000, ch, "closed-" + ch));
        }
        store.store(f, iovs);
        iovs.clear();
        for (int ch = 0; ch < 4; ch++) {
            iovs.add(new NewIov(ch, 1000, ValidityKey.MAX, 100 + ch, "current-" + ch));
        }
        store.store(f, iovs);
    }

    static void writeBig(IovStore store) {
        Node f = store.createFolder(BIG, Versioning.SINGLE_VERSION, KeyType.TIME, PayloadSpec.parse("s:String64k"),
                "a 100 MB answer", true);
        StringBuilder base = new StringBuilder(BIG_STRING);
        java.util.Random r = new java.util.Random(7);
        for (int i = 0; i < BIG_STRING; i++) {
            base.append((char) ('a' + r.nextInt(26)));
        }
        List<NewIov> batch = new ArrayList<>();
        for (int i = 0; i < BIG_ROWS; i++) {
            String s = String.format("%08d", i) + base.substring(8);
            batch.add(new NewIov(0, i * 10L, i * 10L + 10, s));
            if (batch.size() == 250) {
                store.store(f, batch);
                batch.clear();
            }
        }
        if (!batch.isEmpty()) {
            store.store(f, batch);
        }
    }

    static String at(long t, String folder) {
        return "/v1/json/at/HEAD/" + t + "/all" + folder;
    }
}
