package io.outpost.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.frontier.protocol.P1Codec;
import io.outpost.server.support.RunningService;
import io.outpost.testkit.MariaDbServer;
import io.outpost.testkit.PostgresServer;
import io.outpost.testkit.TcpProxy;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The service on a real PostgreSQL or MariaDB behind a TCP proxy that is cut and restored while clients keep asking:
 * cached answers keep coming, misses get 503 + Retry-After quickly (native API and Frontier alike), nothing hangs, no
 * 500 or truncated answer, and the service recovers by itself once the database is back.
 */
class DatabaseOutageTest {
    private static final String CACHED = "/v1/json/count/HEAD/0/100/all/DEMO/Calo/Pedestals";
    private static final AtomicInteger MISS = new AtomicInteger(1000);

    private static String nativeMiss() {
        return "/v1/json/count/HEAD/0/" + MISS.incrementAndGet() + "/all/DEMO/Calo/Pedestals";
    }

    private static String frontierMiss() {
        return "/Outpost/Frontier/type=frontier_request:1:DEFAULT&encoding=BLOB&p1="
                + P1Codec.encode("SELECT COUNT(*) FROM OUTPOST_NODES WHERE NODE_ID > " + MISS.incrementAndGet());
    }

    /** A query of one folder's IOV data: the kind of Frontier answer the service keeps (FrontierAnswers). */
    private static String frontierKept(RunningService svc) {
        String table = svc.bean(io.outpost.store.IovStore.class).folder("/DEMO/Calo/Pedestals").iovTable();
        return "/Outpost/Frontier/type=frontier_request:1:DEFAULT&encoding=BLOBzip5&p1="
                + P1Codec.encode("SELECT CHANNEL_ID, IOV_SINCE FROM " + table + " ORDER BY CHANNEL_ID, IOV_SINCE");
    }

    /** One answer, checked for what must hold at any time, outage or not; returns true if it came from the database. */
    private static boolean check(String path, HttpResponse<byte[]> r) {
        String body = new String(r.body(), StandardCharsets.US_ASCII);
        if (path.startsWith("/Outpost/Frontier/")) {
            assertThat(r.statusCode()).as("Frontier %s", path).isIn(200, 503);
            if (r.statusCode() == 503) {
                // as the native API: the client fails over now, and no cache keeps the refusal
                assertThat(r.headers().firstValue("Retry-After")).hasValue("1");
                assertThat(r.headers().firstValue("Cache-Control")).hasValue("no-store");
                assertThat(body).isEqualTo("</frontier>\n");
            }
            if (r.statusCode() == 200) {
                assertThat(body).as("complete Frontier answer").endsWith("</frontier>\n");
                return body.contains("<quality error=\"0\"");
            }
            return false;
        }
        assertThat(r.statusCode()).as("native %s", path).isIn(200, 503);
        if (r.statusCode() == 503) {
            assertThat(r.headers().firstValue("Retry-After")).hasValue("1");
            assertThat(r.headers().firstValue("Content-Type")).hasValue("application/problem+json");
            assertThat(r.headers().firstValue("Cache-Control").orElse("")).doesNotContain("max-age=3", "max-age=6");
            return false;
        }
        assertThat(body).startsWith("{").endsWith("}");
        return true;
    }

    private static HttpResponse<byte[]> get(RunningService svc, String path) throws Exception {
        return svc.get(path, "X-Frontier-Id", "outage-test 1.0");
    }

    @ParameterizedTest
    @ValueSource(strings = {"postgresql", "mariadb"})
    void databaseCutAndRestoredUnderLoad(String backend) throws Exception {
        outageUnderLoad(backend, TcpProxy::cut, 30, 10);
    }

    /**
     * The database stops answering without closing anything (a hung host, a path that drops packets): queries
     * already sent wait for bytes that never come. Misses must still be refused quickly, and once new connections
     * get through again the service recovers by itself, although the stalled connections never answer (the read
     * pool's socket timeout, statement timeout + 5 s, closes them).
     */
    @ParameterizedTest
    @ValueSource(strings = {"postgresql", "mariadb"})
    void databaseStopsAnsweringAndComesBackUnderLoad(String backend) throws Exception {
        // a request that drew a pooled connection not yet found dead waits for the read pool's socket timeout
        // (statement timeout + 5 s) before its 503: bounded, not quick
        outageUnderLoad(backend, TcpProxy::stall, 5, 5 + 5 + 5);
    }

    private void outageUnderLoad(String backend, java.util.function.Consumer<TcpProxy> outage,
                                 int statementTimeoutSeconds, int refusedWithinSeconds) throws Exception {
        boolean mariaDb = backend.equals("mariadb");
        String db = mariaDb ? MariaDbServer.shared().createDatabase("outage")
                : PostgresServer.shared().createDatabase("outage");
        String database = db.substring(db.lastIndexOf('/') + 1);
        int port = mariaDb ? MariaDbServer.shared().port() : PostgresServer.shared().port();
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        AtomicInteger answered = new AtomicInteger();
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService load = Executors.newFixedThreadPool(4);
        try (TcpProxy proxy = new TcpProxy(port);
             RunningService svc = RunningService.start(
                     "jdbc:" + backend + "://127.0.0.1:" + proxy.port() + "/" + database,
                     "--outpost.database.user=" + (mariaDb ? "root" : "postgres"), "--outpost.database.password=",
                     "--outpost.database.connection-timeout=1s",
                     "--outpost.database.statement-timeout=" + statementTimeoutSeconds + "s", "--logging.level.root=warn")) {
            try {
                assertThat(check(CACHED, get(svc, CACHED))).isTrue();
                String warmFrontier = frontierMiss();
                assertThat(check(warmFrontier, get(svc, warmFrontier))).isTrue();
                String frontierCached = frontierKept(svc);
                HttpResponse<byte[]> keptBefore = get(svc, frontierCached);
                assertThat(check(frontierCached, keptBefore)).as("IOV answer").isTrue();
                for (int i = 0; i < 4; i++) {
                    int kind = i;
                    load.execute(() -> {
                        while (!stop.get()) {
                            String path = switch (kind) {
                                case 0 -> CACHED;
                                case 1, 2 -> nativeMiss();
                                default -> frontierMiss();
                            };
                            try {
                                check(path, get(svc, path));
                                answered.incrementAndGet();
                            } catch (Throwable e) {
                                failures.add(new AssertionError(path + ": " + e, e));
                                return;
                            }
                        }
                    });
                }
                awaitCondition("load running", 30, () -> answered.get() >= 20);

                outage.accept(proxy);
                // the cached answer is still served; misses are refused quickly rather than hanging
                for (int i = 0; i < 3; i++) {
                    assertThat(check(CACHED, get(svc, CACHED))).isTrue();
                    long t0 = System.nanoTime();
                    String miss = nativeMiss();
                    HttpResponse<byte[]> r = get(svc, miss);
                    assertThat(r.statusCode()).isEqualTo(503);
                    check(miss, r);
                    assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0)).as("native miss refused in time")
                            .isLessThan(refusedWithinSeconds);
                    long t2 = System.nanoTime();
                    String fmiss = frontierMiss();
                    HttpResponse<byte[]> f = get(svc, fmiss);
                    assertThat(f.statusCode()).as("Frontier miss during the outage").isEqualTo(503);
                    check(fmiss, f);
                    assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t2)).as("Frontier miss refused in time")
                            .isLessThan(refusedWithinSeconds);
                    // a kept Frontier answer is served; in a stall, after at most the read pool's socket timeout
                    // (statement timeout + 5 s) if its request got a connection that had not yet been found dead
                    long t1 = System.nanoTime();
                    HttpResponse<byte[]> kept = get(svc, frontierCached);
                    assertThat(check(frontierCached, kept)).as("kept Frontier answer during the outage").isTrue();
                    assertThat(payload(kept)).isEqualTo(payload(keptBefore));
                    assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t1)).as("kept answer in time")
                            .isLessThan(statementTimeoutSeconds + 5 + 5);
                }
                int before = answered.get();
                awaitCondition("load goes on during the outage", 30, () -> answered.get() >= before + 20);

                proxy.restore();
                awaitCondition("native API recovers", 30, () -> check(CACHED, get(svc, nativeMiss())));
                awaitCondition("Frontier recovers", 30, () -> {
                    String p = frontierMiss();
                    return check(p, get(svc, p));
                });
                int after = answered.get();
                awaitCondition("load goes on after recovery", 30, () -> answered.get() >= after + 20);
                stop.set(true);
                load.shutdown();
                assertThat(load.awaitTermination(60, TimeUnit.SECONDS)).as("load threads finished").isTrue();
            } finally {
                // also when an assertion failed: the load threads end before the service and the proxy close
                stop.set(true);
                load.shutdownNow();
                load.awaitTermination(60, TimeUnit.SECONDS);
            }
        }
        assertThat(failures).isEmpty();
    }

    /** The records of a Frontier answer (between data tags), which do not depend on when it was sent. */
    private static String payload(HttpResponse<byte[]> r) {
        String body = new String(r.body(), StandardCharsets.US_ASCII);
        return body.substring(body.indexOf("<data>"), body.indexOf("</data>"));
    }

    interface Condition {
        boolean test() throws Exception;
    }

    /** Polls a condition every 100 ms for at most {@code seconds}; a failure of the load threads ends it early. */
    private static void awaitCondition(String what, int seconds, Condition c) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!c.test()) {
            assertThat(System.nanoTime()).as("%s within %d s", what, seconds).isLessThan(deadline);
            Thread.sleep(100);
        }
    }

}
