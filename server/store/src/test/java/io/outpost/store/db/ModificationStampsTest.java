package io.outpost.store.db;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.store.IovStore;
import io.outpost.store.model.KeyType;
import io.outpost.store.model.NewIov;
import io.outpost.store.model.Node;
import io.outpost.store.model.PayloadSpec;
import io.outpost.store.model.ValidityKey;
import io.outpost.store.model.Versioning;
import io.outpost.store.read.Metadata;
import io.outpost.store.testing.Backends;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The catalog's poll: the stamps of many folders read a statement per group equal those read one by one. */
class ModificationStampsTest {

    @ParameterizedTest
    @EnumSource(Backends.class)
    void manyStampsAtOnceEqualEachReadAlone(Backends backend) {
        try (IovStore store = backend.freshStore("stamps_at_once")) {
            List<Node> folders = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                Node f = store.createFolder("/STAMPS/F" + i, i % 2 == 0 ? Versioning.SINGLE_VERSION
                        : Versioning.MULTI_VERSION, KeyType.TIME, PayloadSpec.parse("v:Int32"), "", true);
                for (int w = 0; w < i % 3; w++) { // 0, 1 or 2 writes: distinct stamps
                    store.store(f, List.of(new NewIov(0, w, ValidityKey.MAX, i)));
                }
                folders.add(f);
            }
            Map<String, String> alone = new HashMap<>();
            for (Node f : folders) {
                alone.put(f.path(), store.modificationStamp(f));
            }
            Metadata meta = new Metadata(store.database().prefix());
            // groups of 4: two full statements and one of 2
            Map<String, String> grouped = store.read(c -> meta.modificationStamps(c, folders, 4));
            assertThat(grouped).isEqualTo(alone);
            assertThat(store.modificationStamps(folders)).isEqualTo(alone);
            assertThat(alone.get("/STAMPS/F2")).isNotEqualTo(alone.get("/STAMPS/F0"));
            assertThat(store.modificationStamps(List.of())).isEmpty();
        }
    }
}
