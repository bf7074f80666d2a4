package io.outpost.server.pin;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.server.cache.Catalog;
import io.outpost.server.support.RunningService;
import io.outpost.store.IovStore;
import io.outpost.store.globaltag.GlobalTags;
import io.outpost.store.model.KeyType;
import io.outpost.store.model.NewIov;
import io.outpost.store.model.Node;
import io.outpost.store.model.PayloadSpec;
import io.outpost.store.model.ValidityKey;
import io.outpost.store.model.Versioning;
import io.outpost.testkit.MariaDbServer;
import io.outpost.testkit.PostgresServer;
import io.outpost.testkit.TempDirs;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A snapshot's validity when a channel has no IOV at the key: the gap the channel sits in is its validity, so jobs
 * at different keys inside it share one URL; a validity under the configured minimum carries a warning and is
 * counted. Run with rows held in memory and read from the database, the two ways an at-time answer is computed.
 */
class SnapshotValidityTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final PayloadSpec SPEC = PayloadSpec.parse("v:Int32");
    private static final long MINUTE = 60_000_000_000L;

    /** Held rows on SQLite; the database's own neighbour reads on every backend. */
    static Stream<Arguments> backends() {
        return Stream.of(Arguments.of("sqlite", true), Arguments.of("sqlite", false),
                Arguments.of("postgresql", false), Arguments.of("mariadb", false));
    }

    private static RunningService start(String backend, boolean heldRows) {
        String[] args = {"--outpost.demo-data=false", "--outpost.rows.enabled=" + heldRows,
            "--outpost.snapshot.min-valid-time=1m", "--outpost.database.user=" + switch (backend) {
                case "postgresql" -> "postgres";
                case "mariadb" -> "root";
                default -> "";
            }};
        return RunningService.start(switch (backend) {
            case "postgresql" -> PostgresServer.shared().createDatabase("snapshot_validity");
            case "mariadb" -> MariaDbServer.shared().createDatabase("snapshot_validity");
            default -> "jdbc:sqlite:" + TempDirs.create("outpost-validity").resolve("v.db");
        }, args);
    }

    @ParameterizedTest
    @MethodSource("backends")
    void aChannelInAGapBoundsTheValidityByItsGapAndShortValiditiesWarn(String backend, boolean heldRows)
            throws Exception {
        try (RunningService svc = start(backend, heldRows)) {
            IovStore store = svc.bean(IovStore.class);
            // channel 0 covers everything from 0 in two IOVs; channel 1 has [10, 20) min, a gap, then [30, ∞) min
            Node gappy = store.createFolder("/V/Gappy", Versioning.MULTI_VERSION, KeyType.TIME, SPEC, "", true);
            store.store(gappy, List.of(new NewIov(0, 0, 100 * MINUTE, 1), new NewIov(0, 100 * MINUTE,
                    ValidityKey.MAX, 2), new NewIov(1, 10 * MINUTE, 20 * MINUTE, 3), new NewIov(1, 30 * MINUTE,
                    ValidityKey.MAX, 4)));
            // a folder whose only channel changes every 10 ns: its snapshots are valid for 10 ns
            Node busy = store.createFolder("/W/Busy", Versioning.MULTI_VERSION, KeyType.TIME, SPEC, "", true);
            store.store(busy, List.of(new NewIov(0, 0, 10, 1), new NewIov(0, 10, 20, 2), new NewIov(0, 20,
                    ValidityKey.MAX, 3)));
            store.tagCurrentHead(gappy, "G-1", "");
            new GlobalTags(store).create("GT-V", "", Map.of("/V/Gappy", "G-1"));
            svc.bean(Catalog.class).refresh();

            // keys 22 and 28 min: channel 1 is in its gap [20, 30) min, channel 0 in [0, 100) min
            HttpResponse<byte[]> first = svc.get("/v1/json/snapshot/GT-V/" + 22 * MINUTE + "/V");
            HttpResponse<byte[]> second = svc.get("/v1/json/snapshot/GT-V/" + 28 * MINUTE + "/V");
            assertThat(first.statusCode()).isEqualTo(200);
            JsonNode snap = json(first);
            assertThat(snap.get("validSince").asLong()).isEqualTo(20 * MINUTE);
            assertThat(snap.get("validUntil").asLong()).isEqualTo(30 * MINUTE);
            assertThat(header(second, "X-Outpost-Snapshot")).isEqualTo(header(first, "X-Outpost-Snapshot"))
                    .endsWith("/snapshot/GT-V/" + 20 * MINUTE + "/V");
            assertThat(second.body()).isEqualTo(first.body());
            assertThat(snap.has("warning")).isFalse();
            // the same over HEAD, where the folder's at-time answer is read through no tag
            assertThat(json(svc.get("/v1/json/snapshot/HEAD/" + 25 * MINUTE + "/V")).get("validSince").asLong())
                    .isEqualTo(20 * MINUTE);
            // before channel 1's first IOV: its gap is [0, 10) min
            assertThat(json(svc.get("/v1/json/snapshot/GT-V/" + 5 * MINUTE + "/V")).get("validUntil").asLong())
                    .isEqualTo(10 * MINUTE);

            double countedBefore = svc.metric("outpost_snapshot_short_validity_total");
            JsonNode shortOne = json(svc.get("/v1/json/snapshot/GT-V/15/W"));
            assertThat(shortOne.get("validSince").asLong()).isEqualTo(10);
            assertThat(shortOne.get("validUntil").asLong()).isEqualTo(20);
            assertThat(shortOne.get("warning").asString()).contains("valid only for [10, 20)", "/W/Busy",
                    "1m minimum");
            assertThat(svc.metric("outpost_snapshot_short_validity_total")).isEqualTo(countedBefore + 1);
        }
    }

    private static JsonNode json(HttpResponse<byte[]> r) {
        return JSON.readTree(new String(r.body(), StandardCharsets.UTF_8));
    }

    private static String header(HttpResponse<byte[]> r, String name) {
        return r.headers().firstValue(name).orElse(null);
    }
}
