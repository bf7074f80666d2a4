package io.outpost.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.outpost.server.support.RunningService;
import io.outpost.store.IovStore;
import io.outpost.store.db.DatabaseConfig;
import io.outpost.store.model.KeyType;
import io.outpost.store.model.NewIov;
import io.outpost.store.model.ValidityKey;
import io.outpost.store.testing.Backends;
import io.outpost.store.workload.ManyFolders;
import io.outpost.store.workload.Workload;
import io.outpost.testkit.TempDirs;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The first snapshot of a global tag over many folders computes every folder's at-time answer; it must not cost a
 * database transaction (and the stamp checks around it) per folder. Counted by the read pool's own metric
 * (connections taken, one per read transaction): the manyFolders data set at 500 folders, a global tag over 250 of
 * them, time and run-lumi, single- and multi-version. A folder written during a snapshot's batch costs the retry
 * that folder only. Every folder's rows in the snapshot are those of its own at-time read.
 */
class SnapshotFirstSessionTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final double SCALE = 5;

    @ParameterizedTest
    @EnumSource(value = Backends.class, names = {"SQLITE", "POSTGRESQL"})
    void firstSnapshotReadsTheFoldersInAFewTransactions(Backends backend) throws Exception {
        DatabaseConfig config = backend.freshConfig("snapshot_first_session");
        try {
            int n = ManyFolders.folders(SCALE);
            int tagged = n / 2;
            try (IovStore loader = IovStore.open(config)) {
                new ManyFolders(loader, 7).populate(SCALE, i -> { });
            }
            List<String> args = new ArrayList<>(List.of("--outpost.demo-data=false", "--outpost.poll-interval=1h"));
            if (config.user() != null) {
                args.add("--outpost.database.user=" + config.user());
                args.add("--outpost.database.password=" + config.password());
            }
            try (RunningService svc = RunningService.start(config.jdbcUrl(), args.toArray(String[]::new))) {
                long t = Workload.T0 + ManyFolders.HOUR + 1;
                long rl = ValidityKey.fromRunLumi(ManyFolders.FIRST_RUN + 1, 5);
                String path = "/v1/json/snapshot/" + ManyFolders.GLOBAL_TAG + "/" + t + "," + rl + ManyFolders.TAGGED;
                // the state first: resolving the global tag reads the database once per catalog generation
                assertThat(svc.get("/v1/json/state/" + ManyFolders.GLOBAL_TAG + ManyFolders.TAGGED).statusCode())
                        .isEqualTo(200);

                double before = readTransactions(svc);
                var first = svc.get(path);
                double taken = readTransactions(svc) - before;
                assertThat(first.statusCode()).as(new String(first.body(), StandardCharsets.UTF_8)).isEqualTo(200);
                JsonNode snapshot = JSON.readTree(first.body());
                assertThat(snapshot.get("rowCount").asInt()).isEqualTo(tagged);
                // four transactions per folder before (800 for 200 folders); now one per 200 folders
                assertThat(taken).as("read transactions for the first snapshot of %d folders", tagged)
                        .isLessThanOrEqualTo(3);

                before = readTransactions(svc);
                assertThat(svc.get(path).statusCode()).isEqualTo(200);
                assertThat(readTransactions(svc) - before).as("the same snapshot again, from memory").isZero();

                // a write the catalog has not seen yet lands before a snapshot at a new time: the batch reads and keeps
                // every other folder's answer, and the retry reads the written folder only (an attempt that dropped
                // the others' answers would have them computed twice)
                IovStore store = svc.bean(IovStore.class);
                store.store(store.folder(ManyFolders.path(1, n)), List.of(
                        new NewIov(0, Workload.T0 + 10 * ManyFolders.HOUR, ValidityKey.MAX, 1, "w")));
                long timeFolders = IntStream.range(0, tagged).filter(i -> ManyFolders.keyType(i) == KeyType.TIME).count();
                double computed = computedAnswers(svc);
                String later = path.replace("/" + t + ",", "/" + (t + ManyFolders.HOUR) + ",");
                var afterWrite = svc.get(later);
                assertThat(afterWrite.statusCode()).as(new String(afterWrite.body(), StandardCharsets.UTF_8))
                        .isEqualTo(200);
                assertThat(computedAnswers(svc) - computed).as("answers computed for the snapshot after the write")
                        .isLessThanOrEqualTo(timeFolders + 1);

                for (JsonNode row : snapshot.get("rows")) {
                    String folder = row.get(0).asString();
                    int i = Integer.parseInt(folder.substring(folder.lastIndexOf('F') + 1));
                    long key = ManyFolders.keyType(i) == KeyType.RUN_LUMI ? rl : t;
                    JsonNode alone = JSON.readTree(svc.get("/v1/json/at/" + row.get(1).asString() + "/" + key
                            + "/all" + folder).body());
                    assertThat(row.get(5).get("rows")).as(folder).isEqualTo(alone.get("rows"));
                    assertThat(row.get(3).asLong()).as(folder).isEqualTo(ManyFolders.channels(i));
                }
            }
        } finally {
            if (config.jdbcUrl().startsWith("jdbc:sqlite:")) {
                TempDirs.delete(Path.of(config.jdbcUrl().substring("jdbc:sqlite:".length())).getParent());
            }
        }
    }

    /** Answers of native queries computed so far (the service's own timer of them). */
    private static double computedAnswers(RunningService svc) {
        return svc.bean(MeterRegistry.class).get("outpost.query.time").timer().count();
    }

    /** Connections taken from the read pool so far (HikariCP's own metric): one per read transaction. */
    private static double readTransactions(RunningService svc) {
        double sum = 0;
        for (Timer timer : svc.bean(MeterRegistry.class).find("hikaricp.connections.acquire").timers()) {
            if (timer.getId().getTag("pool").contains("read")) {
                sum += timer.count();
            }
        }
        return sum;
    }
}
