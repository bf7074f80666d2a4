package io.outpost.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.store.db.DatabaseConfig;
import io.outpost.store.model.ChannelSelection;
import io.outpost.store.model.KeyType;
import io.outpost.store.model.NewIov;
import io.outpost.store.model.Node;
import io.outpost.store.model.PayloadSpec;
import io.outpost.store.model.ValidityKey;
import io.outpost.store.model.Versioning;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.oracle.OracleContainer;

/**
 * The store on a real Oracle (gvenzl/oracle-free). Runs wherever a Docker engine exists; elsewhere JUnit reports
 * it skipped because Docker is not available.
 */
@Testcontainers(disabledWithoutDocker = true)
class OracleStoreIT {

    @Container
    static final OracleContainer ORACLE = new OracleContainer("gvenzl/oracle-free:23.6-slim-faststart");

    @Test
    void storesAndReadsSingleAndMultiVersionFolders() {
        try (IovStore store = IovStore.open(DatabaseConfig.of(ORACLE.getJdbcUrl(), ORACLE.getUsername(), ORACLE.getPassword()))) {
            Node sv = store.createFolder("/O/sv", Versioning.SINGLE_VERSION, KeyType.TIME,
                    PayloadSpec.parse("x:Int32,s:String4k,b:Blob64k,f:Float"), "", true);
            store.store(sv, List.of(new NewIov(1, 0, ValidityKey.MAX, 1, "a", new byte[] {1, 2}, 1.5f)));
            store.store(sv, List.of(new NewIov(1, 10, ValidityKey.MAX, 2, "b", null, 2.5f)));
            assertThat(store.count(sv, 0, ValidityKey.MAX, ChannelSelection.all(), null)).isEqualTo(2);
            assertThat(store.findObject(sv, 5, 1, null).until()).isEqualTo(10);

            Node mv = store.createFolder("/O/mv", Versioning.MULTI_VERSION, KeyType.RUN_LUMI, PayloadSpec.parse("x:Int32"), "", true);
            store.store(mv, List.of(new NewIov(1, 0, 100, 1)));
            store.tagCurrentHead(mv, "ORA-T1", "");
            store.store(mv, List.of(new NewIov(1, 40, 60, 2)));
            assertThat(store.count(mv, 0, 200, ChannelSelection.all(), null)).isEqualTo(3);
            assertThat(store.count(mv, 0, 200, ChannelSelection.all(), "ORA-T1")).isEqualTo(1);
        }
    }
}
