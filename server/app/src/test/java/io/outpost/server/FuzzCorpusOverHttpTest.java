package io.outpost.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.frontier.protocol.P1Codec;
import io.outpost.server.support.RunningService;
import io.outpost.testkit.MariaDbServer;
import io.outpost.testkit.PostgresServer;
import io.outpost.testkit.RawHttp;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The committed fuzz corpora (seeds and any Jazzer findings) of the Frontier request targets (server/frontier's
 * RequestFuzzTest) and of the native URL parser (NativeUrlFuzzTest), sent as real HTTP requests to a running service:
 * every one must get a complete HTTP answer, never a 5xx (except a 503 with Retry-After, the documented refusal of
 * the concurrency limits), and never a dropped connection. On SQLite, and on a real PostgreSQL and MariaDB, where
 * the SQL also goes through the database's cost estimate (EXPLAIN).
 */
class FuzzCorpusOverHttpTest {
    /** The Frontier module's corpus, read from its sources (the tests run in this module's folder). */
    private static final Path FRONTIER = Path.of("../frontier/src/test/resources/io/outpost/frontier/RequestFuzzTestInputs");
    private static final Path NATIVE = Path.of("src/test/resources/io/outpost/server/query/NativeUrlFuzzTestInputs/nativePath");
    private static final String FRONTIER_URL = "/Outpost/Frontier";

    private static RunningService sqlite;
    private static RunningService postgres;
    private static RunningService mariaDb;

    @BeforeAll
    static void start() throws IOException {
        sqlite = RunningService.startSqliteDemo("--logging.level.root=warn");
        String db = PostgresServer.shared().createDatabase("fuzz");
        postgres = RunningService.start(db, "--outpost.database.user=postgres", "--outpost.database.password=",
                "--logging.level.root=warn");
        mariaDb = RunningService.start(MariaDbServer.shared().createDatabase("fuzz"), "--outpost.database.user=root",
                "--outpost.database.password=", "--logging.level.root=warn");
    }

    @AfterAll
    static void stop() {
        try {
            if (sqlite != null) {
                sqlite.close();
            }
        } finally {
            try {
                if (postgres != null) {
                    postgres.close();
                }
            } finally {
                if (mariaDb != null) {
                    mariaDb.close();
                }
            }
        }
    }

    static Stream<Arguments> requests() throws IOException {
        List<Arguments> all = new ArrayList<>();
        for (Path f : inputs(NATIVE)) {
            String t = RawHttp.target(Files.readAllBytes(f));
            all.add(Arguments.of("native " + f.getFileName(), t.startsWith("/") ? t : "/" + t));
        }
        for (Path f : inputs(FRONTIER.resolve("queryString"))) {
            String t = RawHttp.target(Files.readAllBytes(f));
            all.add(Arguments.of("frontier query " + f.getFileName(), FRONTIER_URL + "?" + t));
            all.add(Arguments.of("frontier path " + f.getFileName(), FRONTIER_URL + "/" + t));
        }
        for (Path f : inputs(FRONTIER.resolve("p1"))) {
            all.add(Arguments.of("frontier p1 " + f.getFileName(), FRONTIER_URL
                    + "?type=frontier_request:1:DEFAULT&encoding=BLOB&p1=" + RawHttp.target(Files.readAllBytes(f))));
        }
        List<Path> statements = new ArrayList<>(inputs(FRONTIER.resolve("sqlGuard")));
        statements.addAll(inputs(FRONTIER.resolve("shapeCheck")));
        for (Path f : statements) {
            String sql = Files.readString(f, StandardCharsets.UTF_8);
            all.add(Arguments.of("frontier sql " + f.getParent().getFileName() + "/" + f.getFileName(), FRONTIER_URL
                    + "/type=frontier_request:1:DEFAULT&encoding=BLOBzip5&p1=" + P1Codec.encode(sql)));
        }
        return all.stream().flatMap(a -> Stream.of("sqlite", "postgresql", "mariadb")
                .map(db -> Arguments.of(db, a.get()[0], a.get()[1])));
    }

    /** Every file of a corpus folder, which must exist and hold some (a moved folder must not pass silently). */
    private static List<Path> inputs(Path dir) throws IOException {
        assertThat(dir).as("fuzz corpus folder").isDirectory();
        try (Stream<Path> files = Files.list(dir)) {
            List<Path> list = files.filter(Files::isRegularFile).sorted().toList();
            assertThat(list).as("inputs in %s", dir).isNotEmpty();
            return list;
        }
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("requests")
    void answeredWithoutServerError(String database, String name, String target) throws IOException {
        RunningService svc = switch (database) {
            case "sqlite" -> sqlite;
            case "postgresql" -> postgres;
            default -> mariaDb;
        };
        RawHttp.Response r = RawHttp.get(svc.port(), target, "X-Frontier-Id", "fuzz-corpus 1.0");
        assertThat(r.status()).as("%s: a complete HTTP answer, not a dropped connection; got %s", target, r.head())
                .isPositive();
        if (r.status() >= 500) {
            assertThat(r.status()).as("%s: only the documented 503 of a concurrency limit", target).isEqualTo(503);
            assertThat(r.header("Retry-After")).as("503 with Retry-After").isPresent();
        }
        r.header("Content-Length").ifPresent(n -> assertThat(r.body()).as("whole body").hasSize(Integer.parseInt(n)));
        if (target.startsWith(FRONTIER_URL) && r.status() == 200) {
            assertThat(new String(r.body(), StandardCharsets.US_ASCII)).as("complete Frontier answer").endsWith("</frontier>\n");
        }
    }
}
