package io.outpost.store.flight;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SingleFlightTest {
    private static final int CALLERS = 8;
    private static final long WAIT = TimeUnit.SECONDS.toMillis(30);

    private final ConcurrentHashMap<String, CompletableFuture<String>> map = new ConcurrentHashMap<>();
    private final SingleFlight<String, String> flights = new SingleFlight<>(map);
    private final ExecutorService threads = Executors.newFixedThreadPool(CALLERS);

    @AfterEach
    void stop() {
        threads.shutdownNow();
    }

    /** Callers that all hold their turn before the leader lands: one computes, every other one gets its value. */
    private List<SingleFlight.Waited<String>> together(java.util.function.Consumer<SingleFlight.Turn<String, String>> lead)
            throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        CountDownLatch turned = new CountDownLatch(CALLERS);
        List<Future<SingleFlight.Waited<String>>> results = new ArrayList<>();
        for (int i = 0; i < CALLERS; i++) {
            results.add(threads.submit(() -> {
                start.await();
                SingleFlight.Turn<String, String> turn = flights.turn("k");
                turned.countDown();
                if (turn.leads()) {
                    assertThat(turned.await(WAIT, TimeUnit.MILLISECONDS)).isTrue();
                    lead.accept(turn);
                    return null;
                }
                assertThat(turn.wasDone()).isFalse();
                return turn.await(WAIT);
            }));
        }
        start.countDown();
        List<SingleFlight.Waited<String>> waited = new ArrayList<>();
        for (Future<SingleFlight.Waited<String>> r : results) {
            waited.add(r.get(WAIT, TimeUnit.MILLISECONDS));
        }
        assertThat(waited.stream().filter(w -> w == null)).as("callers that led").hasSize(1);
        waited.removeIf(w -> w == null);
        return waited;
    }

    @Test
    void oneCallerComputesAndTheOthersGetItsValue() throws Exception {
        List<SingleFlight.Waited<String>> joined = together(turn -> turn.land("v1"));
        assertThat(joined).hasSize(CALLERS - 1).allMatch(w -> w.equals(new SingleFlight.Waited.Done<>("v1")));
        SingleFlight.Turn<String, String> later = flights.turn("k");
        assertThat(later.leads()).isFalse();
        assertThat(later.wasDone()).as("a landed flight stays as the kept value").isTrue();
        assertThat(later.awaitOrNull(WAIT)).isEqualTo("v1");
    }

    @Test
    void aFailedLeaderIsSeenByTheWaitersAndNotKept() throws Exception {
        IllegalStateException cause = new IllegalStateException("database down");
        List<SingleFlight.Waited<String>> joined = together(turn -> turn.fail(cause));
        assertThat(joined).allMatch(w -> w.equals(new SingleFlight.Waited.Failed<>(cause)));
        assertThat(map).isEmpty();
        assertThat(flights.turn("k").leads()).isTrue();
    }

    @Test
    void aDroppedFlightHandsTheWaitersItsStandInAndIsNotKept() throws Exception {
        List<SingleFlight.Waited<String>> joined = together(turn -> turn.drop(null));
        assertThat(joined).allMatch(w -> w.equals(new SingleFlight.Waited.Done<String>(null)));
        assertThat(map).isEmpty();
    }

    @Test
    void waitingIsBounded() {
        SingleFlight.Turn<String, String> leader = flights.turn("k");
        assertThat(leader.leads()).isTrue();
        SingleFlight.Turn<String, String> joiner = flights.turn("k");
        assertThat(joiner.leads()).isFalse();
        assertThat(joiner.await(1)).isEqualTo(new SingleFlight.Waited.TimedOut<String>());
        assertThat(joiner.awaitOrNull(1)).isNull();
    }

    @Test
    void anInterruptedWaitSaysSoAndKeepsTheInterrupt() throws Exception {
        flights.turn("k");
        SingleFlight.Turn<String, String> joiner = flights.turn("k");
        Future<Object[]> waited = threads.submit(() -> {
            Thread.currentThread().interrupt();
            return new Object[] {joiner.await(WAIT), Thread.currentThread().isInterrupted()};
        });
        Object[] r = waited.get(WAIT, TimeUnit.MILLISECONDS);
        assertThat(r[0]).isEqualTo(new SingleFlight.Waited.Interrupted<String>());
        assertThat(r[1]).isEqualTo(true);
    }

    @Test
    void claimLeadsOnlyWhereNothingIsThere() {
        SingleFlight.Turn<String, String> first = flights.claim("k");
        assertThat(first).isNotNull();
        assertThat(first.leads()).isTrue();
        assertThat(flights.claim("k")).isNull();
        first.land("v");
        assertThat(flights.claim("k")).isNull();
    }

    @Test
    void forgetRemovesOnlyTheFlightItJoined() {
        flights.turn("k").land("old");
        SingleFlight.Turn<String, String> stale = flights.turn("k");
        SingleFlight.Turn<String, String> alsoStale = flights.turn("k");
        stale.forget();
        SingleFlight.Turn<String, String> fresh = flights.turn("k");
        assertThat(fresh.leads()).isTrue();
        fresh.land("new");
        alsoStale.forget();
        assertThat(flights.turn("k").awaitOrNull(WAIT)).isEqualTo("new");
    }
}
