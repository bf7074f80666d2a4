package io.outpost.frontier;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.frontier.encode.AnswerDeflate;
import io.outpost.frontier.protocol.FrontierConfig;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * An answer of about a megabyte over real HTTP, compressed by igzip (where it loads) and by java.util.zip: each passes the client's checks (MD5 over the compressed bytes, one zlib stream, full_size, records)
 * and carries exactly the stored rows.
 */
class CompressedAnswersEndToEndTest {
    private static final int CHANNELS = 4_000;

    @ParameterizedTest
    @EnumSource(Backends.class)
    void everyWayOfCompressingCarriesTheStoredRows(Backends b) throws Exception {
        try (IovStore store = IovStore.open(b.freshConfig("compressed_e2e").withPools(4, 1))) {
            Node f = store.createFolder("/e2e/pieces", Versioning.SINGLE_VERSION, KeyType.TIME,
                    PayloadSpec.parse("s:String255"), "pieces", true);
            Random r = new Random(11);
            List<NewIov> iovs = new ArrayList<>();
            List<List<String>> expected = new ArrayList<>();
            for (int ch = 0; ch < CHANNELS; ch++) {
                StringBuilder s = new StringBuilder();
                for (int i = 0; i < 120; i++) {
                    s.append((char) ('!' + r.nextInt(94)));
                }
                iovs.add(new NewIov(ch, ch * 10L, ValidityKey.MAX, s.toString()));
                expected.add(List.of(Integer.toString(ch), Long.toString(ch * 10L), s.toString()));
            }
            store.store(f, iovs);
            String sql = "SELECT CHANNEL_ID, IOV_SINCE, S FROM " + f.iovTable() + " ORDER BY CHANNEL_ID";
            FrontierServlet servlet = new FrontierServlet(
                    new FrontierContext("Outpost", store.database(), FrontierConfig.defaults("Outpost")), 0);
            try (TestServer server = new TestServer(servlet)) {
                String target = FrontierRequests.path("Outpost", "BLOBzip5", Map.of(), sql);
                // "": igzip where it loads; "jdk": java.util.zip
                for (String way : List.of("", "jdk")) {
                    System.setProperty(AnswerDeflate.PROPERTY, way);
                    try (RawHttp h = RawHttp.send(server.port(), target, "HTTP/1.0", FrontierRequests.clientHeaders())) {
                        assertThat(h.status).isEqualTo(200);
                        FrontierDecoder.Payload p = FrontierDecoder.decode(h.body()).only(); // checks MD5, zlib, sizes
                        assertThat(p.error()).as(way).isFalse();
                        assertThat(p.records()).as(way).isEqualTo(CHANNELS);
                        assertThat(p.fullSize()).as(way).isGreaterThan(512L << 10);
                        assertThat(p.data()).as(way).isEqualTo(expected);
                    } finally {
                        System.clearProperty(AnswerDeflate.PROPERTY);
                    }
                }
            }
        }
    }
}
