package io.outpost.frontier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outpost.frontier.cost.QueryCostLimits;
import io.outpost.store.IovStore;
import io.outpost.store.testing.Backends;
import io.outpost.testkit.RawHttp;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The servlets' threads are started and stopped by their owner, never left running by a static pool. */
class FrontierRuntimeTest {

    @Test
    void closingStopsTheKeepaliveTimerAndTheParserThreads() throws Exception {
        FrontierRuntime runtime = new FrontierRuntime();
        assertThat(runtime.parser().parseSelect("SELECT 1 FROM dual")).isNotNull();
        runtime.close();
        assertThat(runtime.isClosed()).isTrue();
        assertThat(runtime.keepaliveTimer().awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        assertThatThrownBy(() -> runtime.keepaliveTimer().execute(() -> { }))
                .isInstanceOf(RejectedExecutionException.class);
        assertThatThrownBy(() -> runtime.parser().parseSelect("SELECT 2 FROM dual"))
                .as("no parse runs after close").isInstanceOf(Exception.class);
    }

    @Test
    void aDestroyedServletClosesOnlyTheRuntimeItMadeItself() throws Exception {
        try (IovStore store = Backends.SQLITE.freshStore("frontier_runtime");
             FrontierRuntime shared = new FrontierRuntime()) {
            FrontierServlet own = new FrontierServlet(new FrontierContext("Own", store.database()));
            FrontierServlet given = new FrontierServlet(new FrontierContext("Given", store.database()), shared, 0,
                    QueryCostLimits.defaults());
            assertThat(given.runtime()).isSameAs(shared);
            try (TestServer server = new TestServer(own, given)) {
                for (String context : new String[] {"Own", "Given"}) {
                    // a request without a query: answered by the servlet (so Tomcat has initialised it)
                    try (RawHttp r = RawHttp.send(server.port(), "/" + context + "/Frontier/", "HTTP/1.0",
                            FrontierRequests.clientHeaders())) {
                        assertThat(r.status).isEqualTo(200);
                        assertThat(new String(r.body(), StandardCharsets.US_ASCII)).contains("global_error");
                    }
                }
                assertThat(own.runtime().isClosed()).isFalse();
            }
            assertThat(own.runtime().isClosed()).as("made by the servlet, closed with it").isTrue();
            assertThat(shared.isClosed()).as("the owner's, left to the owner").isFalse();
        }
    }
}
