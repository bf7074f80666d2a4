package io.outpost.frontier;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.store.IovStore;
import io.outpost.store.model.KeyType;
import io.outpost.store.model.NewIov;
import io.outpost.store.model.Node;
import io.outpost.store.model.PayloadSpec;
import io.outpost.store.model.ValidityKey;
import io.outpost.store.model.Versioning;
import io.outpost.store.testing.Backends;
import io.outpost.testkit.FrontierDecoder;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * COOL's SQL through the Frontier names folders, tags and channels in literals and bind values that go to the
 * database as they are; a padded spelling must find nothing there too, on every backend (MariaDB's PAD SPACE
 * utf8mb4_bin found 'ch0' for 'ch0 '; the name columns are NO PAD now, docs/schema.md "Names").
 */
class ExactNamesFrontierTest {

    @ParameterizedTest
    @EnumSource(Backends.class)
    void paddedNamesInCoolSqlFindNothing(Backends b) throws Exception {
        try (IovStore store = IovStore.open(b.freshConfig("frontier_names"))) {
            Node f = store.createFolder("/det/f", Versioning.MULTI_VERSION, KeyType.TIME, PayloadSpec.parse("v:Int32"),
                    "", true);
            store.createChannel(f, 0, "ch0", "");
            store.store(f, List.of(new NewIov(0, 10, ValidityKey.MAX, 1)));
            store.tagCurrentHead(f, "T1", "");
            try (TestServer server = new TestServer(new FrontierServlet(new FrontierContext("Outpost", store.database())))) {
                CmsConditionsTest.Fixture http = new CmsConditionsTest.Fixture(store.database(), server);
                String channels = f.channelTable();
                String byName = "SELECT \"CHANNEL_ID\" FROM \"OUTPOST\".\"" + channels + "\" \"" + channels + "\" WHERE \""
                        + "CHANNEL_NAME\" = ";
                assertThat(ask(http, byName + "'ch0'")).containsExactly(List.of("0"));
                assertThat(ask(http, byName + "'ch0 '")).isEmpty();
                assertThat(ask(http, byName + "? AND \"CHANNEL_ID\" >= ?:ch0 :0")).isEmpty();
                assertThat(ask(http, byName + "? AND \"CHANNEL_ID\" >= ?:ch0:0")).containsExactly(List.of("0"));
                String tags = "SELECT \"TAG_ID\" FROM \"OUTPOST\".\"OUTPOST_TAGS\" \"OUTPOST_TAGS\" WHERE \"TAG_NAME\" = ";
                assertThat(ask(http, tags + "'T1'")).hasSize(1);
                assertThat(ask(http, tags + "'T1 '")).isEmpty();
                String nodes = "SELECT \"NODE_ID\" FROM \"OUTPOST\".\"OUTPOST_NODES\" \"OUTPOST_NODES\" WHERE \"NODE_FULLPATH\" = ";
                assertThat(ask(http, nodes + "'/det/f'")).containsExactly(List.of(String.valueOf(f.id())));
                assertThat(ask(http, nodes + "'/det/f '")).isEmpty();
                assertThat(ask(http, nodes + "'/det '")).isEmpty();
            }
        }
    }

    private static List<List<String>> ask(CmsConditionsTest.Fixture http, String sql) throws Exception {
        FrontierDecoder.Payload p = CmsConditionsTest.ask(http, "Outpost", sql + "\n");
        assertThat(p.error()).as("%s -> %s", sql, p.message()).isFalse();
        return p.data();
    }
}
