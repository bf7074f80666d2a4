package io.outpost.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.server.support.RunningService;
import io.outpost.server.support.WireDecoder;
import io.outpost.store.IovStore;
import io.outpost.store.db.DatabaseConfig;
import io.outpost.store.model.KeyType;
import io.outpost.store.model.NewIov;
import io.outpost.store.model.Node;
import io.outpost.store.model.PayloadSpec;
import io.outpost.store.model.ValidityKey;
import io.outpost.store.model.Versioning;
import io.outpost.store.testing.Backends;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Float and Double extremes reach a native API client bit for bit (binary answer) and as text that parses back to
 * the same value (JSON), on every backend: MariaDB's text protocol would round a FLOAT to six digits.
 */
class FloatsOverHttpTest {
    private static final float[] FLOATS = {Float.MAX_VALUE, -Float.MAX_VALUE, Float.MIN_VALUE, 1.2345678f, 0.1f};
    private static final double[] DOUBLES = {Double.MAX_VALUE, Double.MIN_VALUE, 1.2345678901234567, 0.1 + 0.2, -0.1};

    @ParameterizedTest
    @EnumSource(Backends.class)
    void floatsReachTheClientUnaltered(Backends backend) throws Exception {
        DatabaseConfig config = backend.freshConfig("floats_http");
        try (IovStore store = IovStore.open(config)) {
            Node folder = store.createFolder("/F/values", Versioning.SINGLE_VERSION, KeyType.TIME,
                    PayloadSpec.parse("f:Float,d:Double"), "", true);
            store.store(folder, List.of(new NewIov(0, 0, ValidityKey.MAX, FLOATS[0], DOUBLES[0]))); // single IOV
            List<NewIov> batch = new ArrayList<>();
            for (int i = 1; i < FLOATS.length; i++) {
                batch.add(new NewIov(i, 0, ValidityKey.MAX, FLOATS[i], DOUBLES[i]));
            }
            store.store(folder, batch);
        }
        List<String> args = new ArrayList<>();
        if (config.user() != null) {
            args.add("--outpost.database.user=" + config.user());
            args.add("--outpost.database.password=" + config.password());
        }
        try (RunningService svc = RunningService.start(config.jdbcUrl(), args.toArray(String[]::new))) {
            String query = "/at/HEAD/1/all/F/values";
            WireDecoder.Table bin = WireDecoder.decode(svc.get("/v1/bin" + query).body());
            JsonNode json = JsonMapper.builder().build().readTree(
                    new String(svc.get("/v1/json" + query).body(), StandardCharsets.UTF_8));
            assertThat(bin.rows()).hasSize(FLOATS.length);
            assertThat(json.get("rows")).hasSize(FLOATS.length);
            for (int i = 0; i < FLOATS.length; i++) {
                List<Object> row = bin.rows().get(i);
                assertThat(Float.floatToRawIntBits((Float) row.get(3))).as("Float %s", FLOATS[i])
                        .isEqualTo(Float.floatToRawIntBits(FLOATS[i]));
                assertThat(Double.doubleToRawLongBits((Double) row.get(4))).as("Double %s", DOUBLES[i])
                        .isEqualTo(Double.doubleToRawLongBits(DOUBLES[i]));
                JsonNode jsonRow = json.get("rows").get(i);
                assertThat(Float.parseFloat(jsonRow.get(3).asString())).as("JSON Float %s", FLOATS[i])
                        .isEqualTo(FLOATS[i]);
                assertThat(Double.parseDouble(jsonRow.get(4).asString())).as("JSON Double %s", DOUBLES[i])
                        .isEqualTo(DOUBLES[i]);
            }
        }
    }
}
