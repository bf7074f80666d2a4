package io.outpost.server.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.server.OutpostApplication;
import io.outpost.server.support.RunningService;
import io.outpost.server.support.WriteClient;
import io.outpost.testkit.PostgresServer;
import io.outpost.testkit.TokenIssuer;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The write API on a real PostgreSQL (and MariaDB: {@link MariaDbWriteConsistencyTest}): a write is visible at once on the instance that took it and on a second
 * instance within its poll interval; concurrent writers never create overlaps; a service killed in the middle
 * of a batch leaves the batch absent, never half stored.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WriteConsistencyTest {
    private static final String SCOPES = "conditions.write:/W conditions.lock:/W";
    private static final long POLL_MILLIS = 500;

    private TokenIssuer issuer;
    private String dbUrl;
    private RunningService writer;
    private RunningService other;
    private WriteClient client;
    private String token;

    @BeforeAll
    void start() {
        issuer = new TokenIssuer();
        dbUrl = createDatabase();
        String[] common = {"--outpost.database.user=" + databaseUser(), "--outpost.demo-data=false",
            "--outpost.write.issuer-uri=" + issuer.issuerUri()};
        writer = RunningService.start(dbUrl, concat(common, "--outpost.poll-interval=1h"));
        other = RunningService.start(dbUrl, concat(common, "--outpost.poll-interval=" + POLL_MILLIS + "ms"));
        client = new WriteClient(writer.url(""));
        token = issuer.token("writer", SCOPES);
    }

    private static String[] concat(String[] a, String... b) {
        List<String> all = new ArrayList<>(List.of(a));
        all.addAll(List.of(b));
        return all.toArray(String[]::new);
    }

    @AfterAll
    void stop() {
        for (AutoCloseable c : new AutoCloseable[] {other, writer, issuer}) {
            try {
                if (c != null) {
                    c.close();
                }
            } catch (Exception ignored) {
                // keep closing the rest
            }
        }
    }

    private HttpResponse<String> csv(WriteClient c, String folder, String body) throws Exception {
        return c.send("POST", "/write/v1/iovs" + folder, token, "text/csv", body.getBytes(StandardCharsets.UTF_8));
    }

    private static String rows(RunningService s, String folder) throws Exception {
        return s.get("/v1/json/count/HEAD/0/9223372036854775807/all" + folder).headers().firstValue("ETag").orElse("")
                + " " + new String(s.get("/v1/json/count/HEAD/0/9223372036854775807/all" + folder).body(),
                StandardCharsets.UTF_8);
    }

    private static long count(RunningService s, String folder) throws Exception {
        String body = new String(s.get("/v1/json/count/HEAD/0/9223372036854775807/all" + folder).body(),
                StandardCharsets.UTF_8);
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\[(\\d+)\\]").matcher(body);
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }

    @Test
    void aWriteIsVisibleAtOnceHereAndWithinThePollIntervalOnAnotherInstance() throws Exception {
        assertThat(client.json("POST", "/write/v1/folders/W/Vis", token, "{\"payload\":\"v:Int32\",\"parents\":true}")
                .statusCode()).isEqualTo(201);
        assertThat(count(writer, "/W/Vis")).as("the new folder, at once where it was created").isZero();
        assertThat(awaitCount(other, "/W/Vis", 0)).as("ms until the other instance knows the folder")
                .isLessThanOrEqualTo(POLL_MILLIS * 4 + 2000);
        String otherBefore = rows(other, "/W/Vis");

        assertThat(csv(client, "/W/Vis", "channel,since,until,v\n1,0,10,7\n").statusCode()).isEqualTo(200);
        assertThat(count(writer, "/W/Vis")).as("on the instance that took the write, at once").isEqualTo(1);
        assertThat(awaitCount(other, "/W/Vis", 1)).as("ms until the other instance serves the write")
                .isLessThanOrEqualTo(POLL_MILLIS * 4 + 2000);
        assertThat(rows(other, "/W/Vis")).as("ETag and answer moved on").isNotEqualTo(otherBefore);
    }

    /** Polls (bounded) until the count is {@code expected}; returns the milliseconds it took. */
    private static long awaitCount(RunningService s, String folder, long expected) throws Exception {
        long start = System.nanoTime();
        long deadline = start + TimeUnit.MILLISECONDS.toNanos(POLL_MILLIS * 4 + 2000);
        while (count(s, folder) != expected && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(count(s, folder)).isEqualTo(expected);
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }

    @Test
    void concurrentWritersNeverCreateOverlaps() throws Exception {
        assertThat(client.json("POST", "/write/v1/folders/W/Race", token, "{\"payload\":\"v:Int32\",\"parents\":true}")
                .statusCode()).isEqualTo(201);
        int writers = 8;
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        CountDownLatch go = new CountDownLatch(1);
        try {
            List<Future<Integer>> results = new ArrayList<>();
            for (int i = 0; i < writers; i++) {
                int n = i;
                WriteClient c = new WriteClient((n % 2 == 0 ? writer : other).url(""));
                results.add(pool.submit(() -> {
                    go.await();
                    // every writer claims the same interval of channel 1, plus a channel of its own
                    return csv(c, "/W/Race", "channel,since,until,v\n1,0,100," + n + "\n" + (10 + n) + ",0,100," + n
                            + "\n").statusCode();
                }));
            }
            go.countDown();
            List<Integer> statuses = new ArrayList<>();
            for (Future<Integer> f : results) {
                statuses.add(f.get(60, TimeUnit.SECONDS));
            }
            assertThat(statuses).containsOnly(200, 409);
            assertThat(statuses.stream().filter(s -> s == 200).count()).as(statuses.toString()).isEqualTo(1);
        } finally {
            pool.shutdownNow();
        }
        assertThat(count(writer, "/W/Race")).as("one whole batch of two IOVs, nothing of the others").isEqualTo(2);
    }

    @Test
    void aServiceKilledMidBatchLeavesTheBatchAbsent() throws Exception {
        assertThat(client.json("POST", "/write/v1/folders/W/Crash", token,
                "{\"payload\":\"v:Int32,s:String255\",\"parents\":true}").statusCode()).isEqualTo(201);
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Path dir = io.outpost.testkit.TempDirs.create("outpost-crash");
        Path log = dir.resolve("service.log");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(java, "-Djava.io.tmpdir=" + dir, "-cp", System.getProperty("java.class.path"),
                OutpostApplication.class.getName(), "--server.port=" + port, "--outpost.database.url=" + dbUrl,
                "--server.tomcat.basedir=" + dir.resolve("tomcat"),
                "--outpost.database.user=" + databaseUser(), "--outpost.demo-data=false", "--spring.profiles.active=test",
                "--outpost.write.issuer-uri=" + issuer.issuerUri(), "--outpost.write.max-body-size=256MB")
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            WriteClient crashing = new WriteClient("http://127.0.0.1:" + port);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            while (!up(crashing) && System.nanoTime() < deadline && p.isAlive()) {
                Thread.onSpinWait();
            }
            assertThat(up(crashing)).as("the service process started: " + Files.readString(log)).isTrue();
            StringBuilder big = new StringBuilder("channel,since,until,v,s\n");
            int n = 400_000;
            for (int i = 0; i < n; i++) {
                big.append(i % 1000).append(',').append(i / 1000 * 10).append(',').append(i / 1000 * 10 + 10)
                        .append(",1,row ").append(i).append('\n');
            }
            CompletableFuture<Integer> upload = CompletableFuture.supplyAsync(() -> {
                try {
                    return csv(crashing, "/W/Crash", big.toString()).statusCode();
                } catch (Exception e) {
                    return -1;
                }
            });
            // kill the process while its transaction is inserting rows
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            boolean inserting = false;
            while (!inserting && !upload.isDone() && System.nanoTime() < until) {
                inserting = insertRunning();
            }
            assertThat(inserting).as("the batch's INSERT was seen running before the upload ended").isTrue();
            p.destroyForcibly();
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(upload.get(60, TimeUnit.SECONDS)).as("the client saw the connection die").isEqualTo(-1);
        } finally {
            if (p.isAlive()) {
                p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
            }
            io.outpost.testkit.TempDirs.deleteQuietly(dir);
        }
        // the database rolls back the dead session's transaction: nothing of the batch is stored
        assertThat(count(writer, "/W/Crash")).isZero();
        writer.bean(io.outpost.server.cache.Catalog.class).refresh();
        assertThat(count(writer, "/W/Crash")).isZero();
    }

    private static boolean up(WriteClient c) {
        try {
            return c.get("/actuator/health", null).statusCode() == 200;
        } catch (Exception e) {
            return false;
        }
    }

    /** A fresh database on the backend under test (PostgreSQL here; subclasses run the same tests elsewhere). */
    String createDatabase() {
        return PostgresServer.shared().createDatabase("write_consistency");
    }

    String databaseUser() {
        return "postgres";
    }

    /** Whether a session of the database is running an INSERT into an IOV table right now. */
    boolean insertRunning() throws Exception {
        try (Connection c = DriverManager.getConnection(PostgresServer.shared().url("postgres"), "postgres", "");
             Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE state <> 'idle' "
                     + "AND query ILIKE 'INSERT INTO %IOVS%'")) {
            rs.next();
            return rs.getInt(1) > 0;
        }
    }
}
