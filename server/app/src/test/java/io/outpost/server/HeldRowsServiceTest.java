package io.outpost.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.server.support.RunningService;
import io.outpost.store.IovStore;
import io.outpost.store.demo.DemoData;
import io.outpost.store.model.NewIov;
import io.outpost.store.model.Node;
import io.outpost.store.model.ValidityKey;
import io.outpost.testkit.TempDirs;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Two services on one SQLite database, one answering IOV queries from held rows and one from the database only:
 * every answer (body and validity headers) is the same, errors too, and a write made behind the service's back is
 * in the very next answer of a new URL (no waiting for the catalog's poll).
 */
class HeldRowsServiceTest {
    private static final long T = DemoData.T0 + 3 * DemoData.HOUR + 17;
    private static final String RUN = Long.toString(ValidityKey.fromRunLumi(DemoData.FIRST_RUN + 2, 150));
    private static Path dir;
    private static RunningService held;
    private static RunningService db;

    @BeforeAll
    static void start() throws Exception {
        dir = TempDirs.create("outpost-held");
        String url = "jdbc:sqlite:" + dir.resolve("demo.db");
        held = RunningService.start(url);
        db = RunningService.start(url, "--outpost.rows.enabled=false", "--outpost.demo-data=false");
    }

    @AfterAll
    static void stop() throws Exception {
        try {
            if (held != null) {
                held.close();
            }
            if (db != null) {
                db.close();
            }
        } finally {
            try (Stream<Path> files = Files.walk(dir)) {
                for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    @Test
    void answersFromHeldRowsEqualAnswersFromTheDatabase() throws Exception {
        List<String> paths = new ArrayList<>();
        for (String fmt : List.of("json", "bin")) {
            paths.add("/v1/" + fmt + "/at/HEAD/" + T + "/all/DEMO/Calo/Pedestals");
            paths.add("/v1/" + fmt + "/at/HEAD/" + T + "/3-5,9/DEMO/Calo/Pedestals");
            paths.add("/v1/" + fmt + "/at/HEAD/" + (DemoData.T0 - 1) + "/all/DEMO/DCS/HV");
            for (String order : List.of("cs", "sc", "csd", "sdc")) {
                paths.add("/v1/" + fmt + "/browse/HEAD/" + T + "/" + (T + 3 * DemoData.HOUR) + "/all/" + order + "/DEMO/DCS/HV");
            }
            paths.add("/v1/" + fmt + "/count/HEAD/0/" + ValidityKey.MAX + "/all/DEMO/DCS/HV");
            paths.add("/v1/" + fmt + "/count/HEAD/" + T + "/" + T + "/2/DEMO/DCS/HV");
            for (String tag : List.of("HEAD", "GAINS-v1", "GAINS-v2", "GAINS-test", "DEMO-2026")) {
                paths.add("/v1/" + fmt + "/at/" + tag + "/" + RUN + "/all/DEMO/Calo/Gains");
                paths.add("/v1/" + fmt + "/browse/" + tag + "/0/" + ValidityKey.MAX + "/all/cs/DEMO/Calo/Gains");
            }
            paths.add("/v1/" + fmt + "/at/HEAD/" + RUN + "/all/DEMO/Align/Global");
        }
        // bad input: same problem from both
        paths.add("/v1/json/browse/HEAD/20/10/all/cs/DEMO/DCS/HV");
        paths.add("/v1/json/at/NO-SUCH-TAG/" + T + "/all/DEMO/Calo/Gains");
        paths.add("/v1/json/at/HEAD/" + T + "/name:nope/DEMO/Calo/Pedestals");
        double answersBefore = held.metric("outpost_rows_answers_total");
        for (String p : paths) {
            HttpResponse<byte[]> a = held.get(p);
            HttpResponse<byte[]> b = db.get(p);
            assertThat(a.statusCode()).as(p).isEqualTo(b.statusCode());
            assertThat(new String(a.body(), StandardCharsets.ISO_8859_1)).as(p)
                    .isEqualTo(new String(b.body(), StandardCharsets.ISO_8859_1));
            for (String h : List.of("X-Outpost-Valid-Since", "X-Outpost-Valid-Until", "Cache-Control", "Content-Type")) {
                assertThat(a.headers().firstValue(h)).as(p + " " + h).isEqualTo(b.headers().firstValue(h));
            }
        }
        assertThat(held.metric("outpost_rows_answers_total") - answersBefore).as("answered from memory")
                .isGreaterThanOrEqualTo(paths.size() - 3);
        assertThat(db.metric("outpost_rows_answers_total")).isZero();
    }

    @Test
    void aWriteBehindTheServicesBackIsInTheNextNewUrlsAnswer() throws Exception {
        IovStore store = held.bean(IovStore.class);
        Node f = store.createFolder("/HELD/live", io.outpost.store.model.Versioning.SINGLE_VERSION,
                io.outpost.store.model.KeyType.TIME, io.outpost.store.model.PayloadSpec.parse("x:Int32"), "", true);
        store.store(f, List.of(new NewIov(1, 0, ValidityKey.MAX, 1)));
        held.bean(io.outpost.server.cache.Catalog.class).refresh();
        assertThat(held.getString("/v1/json/at/HEAD/100/all/HELD/live")).contains("[1,0,9223372036854775807,1]");
        store.store(f, List.of(new NewIov(1, 50, ValidityKey.MAX, 2)));
        // no catalog refresh: the held rows are checked against the database's stamp on every use
        String after = held.getString("/v1/json/at/HEAD/101/all/HELD/live");
        assertThat(after).contains("[1,50,9223372036854775807,2]");
        assertThat(held.getString("/v1/json/count/HEAD/0/" + ValidityKey.MAX + "/all/HELD/live")).contains("[2]");
    }

    /**
     * Held rows keep their latest binary answer and send it again for the same content: answers of the same rows at
     * other keys, of other rows, channels, tags and codecs of the same layers, asked in a mixed order twice, are
     * each the database path's bytes.
     */
    @Test
    void binaryAnswersOfHeldRowsAreTheirOwnWhicheverAnswerCameBefore() throws Exception {
        Random rnd = new Random(5);
        for (int round = 0; round < 2; round++) { // keys no other test asks, others each round: each URL answered
            List<String> paths = new ArrayList<>();
            for (String fmt : List.of("bin", "binz")) {
                for (long t : new long[] {T + 100 + 2 * round, T + 101 + 2 * round, T + DemoData.HOUR + round}) {
                    paths.add("/v1/" + fmt + "/at/HEAD/" + t + "/all/DEMO/Calo/Pedestals");
                    paths.add("/v1/" + fmt + "/at/HEAD/" + t + "/3-5,9/DEMO/Calo/Pedestals");
                    paths.add("/v1/" + fmt + "/at/HEAD/" + t + "/all/DEMO/DCS/HV");
                    paths.add("/v1/" + fmt + "/browse/HEAD/" + t + "/" + (t + DemoData.HOUR) + "/all/sc/DEMO/DCS/HV");
                }
                for (String tag : List.of("HEAD", "GAINS-v1", "GAINS-v2")) {
                    String run = Long.toString(ValidityKey.fromRunLumi(DemoData.FIRST_RUN + 2, 160 + round));
                    paths.add("/v1/" + fmt + "/at/" + tag + "/" + run + "/all/DEMO/Calo/Gains");
                }
            }
            Collections.shuffle(paths, rnd);
            for (String p : paths) {
                HttpResponse<byte[]> a = held.get(p);
                assertThat(a.statusCode()).as(p).isEqualTo(200);
                assertThat(a.body()).as(p).isEqualTo(db.get(p).body());
            }
        }
    }
}
