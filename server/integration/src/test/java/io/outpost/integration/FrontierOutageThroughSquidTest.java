package io.outpost.integration;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.frontier.protocol.P1Codec;
import io.outpost.store.IovStore;
import io.outpost.store.db.DatabaseConfig;
import io.outpost.testkit.MariaDbServer;
import io.outpost.testkit.PostgresServer;
import io.outpost.testkit.SquidProcess;
import io.outpost.testkit.TcpProxy;
import io.outpost.testkit.TempDirs;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A database outage seen through a real Squid, as a Frontier client sees it: the service runs on a real PostgreSQL
 * or MariaDB behind a TCP proxy that the test cuts and restores. During the outage a query Squid already holds is
 * served from Squid; a cold query gets 503 + Retry-After, which Squid does not keep (the same query reaches the service again);
 * once the database is back the same query gets its data, without restarting anything.
 */
class FrontierOutageThroughSquidTest {
    private static final AtomicInteger COLD = new AtomicInteger();

    private TcpProxy proxy;
    private Path tomcatDir;
    private OutpostServer outpost;
    private SquidProcess squid;
    private HttpClient client;

    private void start(String backend) throws Exception {
        Assumptions.assumeTrue(SquidProcess.installed(), SquidProcess.NOT_INSTALLED);
        boolean mariaDb = backend.equals("mariadb");
        String url = mariaDb ? MariaDbServer.shared().createDatabase("frontier_outage")
                : PostgresServer.shared().createDatabase("frontier_outage");
        String user = mariaDb ? "root" : "postgres";
        try (IovStore store = IovStore.open(DatabaseConfig.of(url, user, ""))) {
            TestData.writeCond(store);
        }
        proxy = new TcpProxy(mariaDb ? MariaDbServer.shared().port() : PostgresServer.shared().port());
        String database = url.substring(url.lastIndexOf('/') + 1);
        tomcatDir = Layout.target().resolve("db").resolve("frontier-outage-" + backend + ".tomcat");
        String proxied = "jdbc:" + backend + "://127.0.0.1:" + proxy.port() + "/" + database;
        outpost = OutpostServer.start(proxied, tomcatDir, 0,
                "--outpost.database.user=" + user, "--outpost.database.password=",
                "--outpost.database.connection-timeout=1s", "--logging.level.root=warn");
        squid = Layout.startSquid("frontier-outage-" + backend, "--outpost", outpost.baseUrl());
        client = squid.client();
    }

    private void stop() throws Exception {
        // each step even if an earlier one failed: Squid, the service, the proxy, the work folder
        try {
            if (squid != null) {
                squid.close();
            }
        } finally {
            try {
                if (outpost != null) {
                    outpost.close();
                }
            } finally {
                if (proxy != null) {
                    proxy.close();
                }
                if (tomcatDir != null) {
                    TempDirs.delete(tomcatDir);
                }
            }
        }
    }

    private static String frontier(String sql) {
        return "/Outpost/Frontier/type=frontier_request:1:DEFAULT&encoding=BLOBzip5&p1=" + P1Codec.encode(sql);
    }

    /** A query no one has asked yet, so neither Squid nor the service holds its answer. */
    private static String cold() {
        return frontier("SELECT COUNT(*) FROM OUTPOST_NODES WHERE NODE_ID > " + (1000 + COLD.incrementAndGet()));
    }

    private HttpResponse<String> get(String path) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create(outpost.baseUrl() + path)).timeout(Duration.ofSeconds(30))
                .header("X-Frontier-Id", "outpost-integration 1.0").build(), HttpResponse.BodyHandlers.ofString());
    }

    @ParameterizedTest
    @ValueSource(strings = {"postgresql", "mariadb"})
    void squidServesWhatItHoldsAndPassesOnUncachedRefusalsUntilTheDatabaseIsBack(String backend) throws Exception {
        try {
            start(backend);
            outageThroughSquid();
        } finally {
            stop();
        }
    }

    private void outageThroughSquid() throws Exception {
        String held = frontier("SELECT NODE_FULLPATH FROM OUTPOST_NODES ORDER BY NODE_FULLPATH");
        HttpResponse<String> before = get(held);
        assertThat(before.statusCode()).isEqualTo(200);
        assertThat(before.body()).contains("<quality error=\"0\"");

        proxy.cut();
        String cold = cold();
        long t0 = System.nanoTime();
        HttpResponse<String> refused = get(cold);
        assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0)).as("refused quickly").isLessThan(10);
        assertThat(refused.statusCode()).as("cold query during the outage: %s", refused.body()).isEqualTo(503);
        assertThat(refused.headers().firstValue("Retry-After")).hasValue("1");
        assertThat(refused.headers().firstValue("Cache-Control")).hasValue("no-store");
        assertThat(outpost.requests().count(cold, 503)).isEqualTo(1);

        // what Squid holds is still served, from Squid, with the bytes it had before the outage
        HttpResponse<String> kept = get(held);
        assertThat(kept.statusCode()).isEqualTo(200);
        assertThat(kept.body()).isEqualTo(before.body());
        assertThat(kept.headers().firstValue("X-Cache").orElse("")).startsWith("HIT");
        assertThat(outpost.requests().count(held)).as("requests for the held query reaching Outpost").isEqualTo(1);

        // the refusal was not kept: asking again reaches the service again
        assertThat(get(cold).statusCode()).isEqualTo(503);
        assertThat(outpost.requests().count(cold, 503)).isEqualTo(2);

        proxy.restore();
        // the service's pool reconnects by itself: the same cold query now gets data through the same Squid
        HttpResponse<String> after = awaitAnswer(cold, 30);
        assertThat(after.body()).contains("<quality error=\"0\"").contains("records=\"1\"");
        assertThat(outpost.requests().count(cold, 200)).isEqualTo(1);
        assertThat(squid.accessLog(outpost.baseUrl() + cold)).anyMatch(l -> l.status() == 503)
                .anyMatch(l -> l.status() == 200);
        // and that answer is cached as usual
        HttpResponse<String> again = get(cold);
        assertThat(again.body()).isEqualTo(after.body());
        assertThat(again.headers().firstValue("X-Cache").orElse("")).startsWith("HIT");
    }

    /** Asks {@code path} through Squid every 100 ms until it answers 200, for at most {@code seconds}. */
    private HttpResponse<String> awaitAnswer(String path, int seconds) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (true) {
            HttpResponse<String> r = get(path);
            if (r.statusCode() == 200) {
                return r;
            }
            assertThat(r.statusCode()).as("while the service reconnects").isEqualTo(503);
            assertThat(System.nanoTime()).as("%s answered within %d s", path, seconds).isLessThan(deadline);
            Thread.sleep(100);
        }
    }
}
