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
import io.outpost.testkit.RawHttp;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The same query asked again and again gives the same bytes. pgjdbc prepares a statement on the server from its
 * fifth execution and then reads integer and floating-point columns in the binary format, where {@code getString}
 * of {@code 3.0} is "3.0" instead of the server's "3" and {@code 1e10} is "1.0E10": the answer would change after the
 * fourth time unless Frontier's queries always read the text format
 * ({@link io.outpost.frontier.encode.ColumnValues#textFormat}).
 */
class RepeatedQueryBytesTest {
    /** pgjdbc's default prepareThreshold is 5: a few more than that. */
    private static final int TIMES = 8;

    @ParameterizedTest
    @EnumSource(Backends.class)
    void aQueryAskedAgainGivesTheSameBytes(Backends b) throws Exception {
        try (IovStore store = IovStore.open(b.freshConfig("repeated_bytes").withPools(2, 1))) {
            Node f = store.createFolder("/repeat/floats", Versioning.SINGLE_VERSION, KeyType.TIME,
                    PayloadSpec.parse("f:Float,d:Double,i:Int64"), "floats", true);
            store.store(f, List.of(new NewIov(1, 0, ValidityKey.MAX, 3.0f, 3.0, 42L),
                    new NewIov(2, 0, ValidityKey.MAX, 0.1f, 1e10, -7L),
                    new NewIov(3, 0, ValidityKey.MAX, 1.5e-5f, 1.0e-7, Long.MAX_VALUE)));
            String sql = "SELECT CHANNEL_ID, IOV_SINCE, IOV_UNTIL, F, D, I FROM " + f.iovTable() + " ORDER BY CHANNEL_ID";
            // no answer cache: every request runs the query
            FrontierServlet servlet = new FrontierServlet(new FrontierContext("Outpost", store.database()), 0);
            try (TestServer server = new TestServer(servlet)) {
                for (String encoding : new String[] {"BLOB", "BLOBzip5"}) {
                    String target = FrontierRequests.path("Outpost", encoding, Map.of(), sql);
                    byte[] first = null;
                    List<List<String>> firstRows = null;
                    for (int i = 0; i < TIMES; i++) {
                        try (RawHttp r = RawHttp.send(server.port(), target, "HTTP/1.0", FrontierRequests.clientHeaders())) {
                            assertThat(r.status).isEqualTo(200);
                            byte[] body = r.body();
                            FrontierDecoder.Payload p = FrontierDecoder.decode(body).only();
                            assertThat(p.error()).as(p.message()).isFalse();
                            assertThat(p.records()).isEqualTo(3);
                            if (first == null) {
                                first = body;
                                firstRows = p.data();
                            } else {
                                assertThat(p.data()).as("%s answer %d", encoding, i + 1).isEqualTo(firstRows);
                                assertThat(body).as("%s answer %d", encoding, i + 1).isEqualTo(first);
                            }
                        }
                    }
                }
            }
        }
    }
}
