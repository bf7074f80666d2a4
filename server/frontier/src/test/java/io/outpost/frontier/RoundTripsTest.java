package io.outpost.frontier;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.frontier.cost.SteadyShapes;
import io.outpost.store.IovStore;
import io.outpost.store.db.Database;
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
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What a Frontier request sends to PostgreSQL, counted at the driver ({@link CountingDriver}) on the test kit's real
 * server: COOL's at-time reads, another literal each request, as a grid job sends them. The stamp of the folder is
 * read once per request, in the query's snapshot (also by the request that reads Last-Modified), never read again
 * after the query; a shape that earned its standing is not estimated again for each new literal; once it has, a
 * request is one round trip for the prelude and the query, and the end of its transaction.
 */
class RoundTripsTest {
    private static final int CHANNELS = 50;
    private static final int REQUESTS = 30;

    @Test
    void atTimeReadsOfASteadyShapeReadTheStampOnceAndAreNotEstimatedPerLiteral() throws Exception {
        try (IovStore store = Backends.POSTGRESQL.freshStore("round_trips")) {
            Node f = store.createFolder("/RT/sv", Versioning.SINGLE_VERSION, KeyType.TIME,
                    PayloadSpec.parse("s:String255"), "", true);
            List<NewIov> iovs = new ArrayList<>();
            for (int ch = 0; ch < CHANNELS; ch++) {
                iovs.add(new NewIov(ch, 10, ValidityKey.MAX, "value-" + ch));
            }
            store.store(f, iovs);
            try (Database counted = Database.open(store.database().config(),
                    h -> h.setJdbcUrl(CountingDriver.counted(h.getJdbcUrl())))) {
                FrontierServlet servlet = new FrontierServlet(new FrontierContext("Counted", counted));
                try (TestServer server = new TestServer(servlet)) {
                    long start = System.nanoTime();
                    List<List<String>> perRequest = new ArrayList<>();
                    CountingDriver.drain(); // the pool's own checks
                    for (int i = 0; i < REQUESTS; i++) {
                        long t = 1000 + i;
                        String sql = "SELECT CHANNEL_ID, IOV_SINCE, IOV_UNTIL, S FROM " + f.iovTable()
                                + " WHERE IOV_SINCE <= " + t + " AND IOV_UNTIL > " + t + " ORDER BY CHANNEL_ID";
                        try (RawHttp r = RawHttp.send(server.port(),
                                FrontierRequests.path("Counted", "BLOBzip5", Map.of(), sql), "HTTP/1.0",
                                FrontierRequests.clientHeaders())) {
                            assertThat(r.status).isEqualTo(200);
                            FrontierDecoder.Payload p = FrontierDecoder.decode(r.body()).only();
                            assertThat(p.error()).as(p.message()).isFalse();
                            assertThat(p.records()).isEqualTo(CHANNELS);
                        }
                        perRequest.add(CountingDriver.drain());
                    }
                    long seconds = (System.nanoTime() - start) / 1_000_000_000L;
                    for (int i = 0; i < REQUESTS; i++) {
                        List<String> sent = perRequest.get(i);
                        assertThat(count(sent, f.iovSeqTable())).as("statements reading the stamp in request %d: %s",
                                i, sent).isEqualTo(1);
                    }
                    int explains = 0;
                    for (List<String> sent : perRequest) {
                        explains += count(sent, "EXPLAIN");
                    }
                    // a shape earns its standing by EARNED_AFTER estimates, then is estimated again once an interval
                    assertThat(explains).as("estimates in %d requests over %d s: %s", REQUESTS, seconds, perRequest)
                            .isLessThanOrEqualTo(SteadyShapes.EARNED_AFTER + (int) (seconds / 10));
                    assertThat(perRequest.get(0)).as("the first request, which also reads Last-Modified: the prelude"
                            + " with the estimate, the query, the end of the transaction").hasSize(3);
                    List<String> last = perRequest.get(REQUESTS - 1);
                    assertThat(last).as("a request of a steady shape: the prelude with the query, then its end")
                            .hasSize(2);
                    assertThat(last.get(1)).isEqualTo("ROLLBACK");
                }
            }
        }
    }

    /** The statements sent that mention {@code what}. */
    private static int count(List<String> sent, String what) {
        String w = what.toUpperCase(Locale.ROOT);
        return (int) sent.stream().filter(s -> s.toUpperCase(Locale.ROOT).contains(w)).count();
    }
}
