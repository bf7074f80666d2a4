package io.outpost.server.cache;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.server.support.RunningService;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.openjdk.jol.info.GraphLayout;

/**
 * The answer cache's byte bound holds only if an entry's weight is what it takes of the heap. Real answers of a
 * running service, measured object by object with OpenJDK's JOL: the weight must cover the answer's object graph
 * (small answers are mostly header strings and objects, not body) and not exceed it by much.
 */
class AnswerCacheWeightTest {
    /** The future, Caffeine's node and the map's node of an entry, which the answer's own graph does not contain. */
    private static final long ENTRY_OBJECTS = 130;

    private static RunningService svc;

    static {
        // records' fields have no Unsafe offsets; JOL then finds them by layout ("magic" field offsets)
        System.setProperty("jol.magicFieldOffset", "true");
    }

    @BeforeAll
    static void start() throws Exception {
        svc = RunningService.startSqliteDemo("--logging.level.root=warn");
    }

    @AfterAll
    static void stop() {
        if (svc != null) {
            svc.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "/v1/json/count/HEAD/0/100/all/DEMO/Calo/Pedestals",
        "/v1/json/nodes",
        "/v1/json/at/HEAD/1767229200000000000/all/DEMO/Calo/Pedestals",
        "/v1/bin/browse/HEAD/0/9223372036854775807/all/cs/DEMO/Calo/Pedestals"})
    void weightCoversWhatAnEntryHolds(String path) throws Exception {
        assertThat(svc.get(path).statusCode()).isEqualTo(200);
        Answer a = svc.bean(AnswerCache.class).peek(path);
        assertThat(a).as("kept after the first request").isNotNull();
        long graph = GraphLayout.parseInstance(path, a).totalSize() + ENTRY_OBJECTS;
        long weight = AnswerCache.heapBytes(path, a);
        assertThat(weight).as("weight of %s (body %d bytes) against its measured %d bytes", path, a.body().length, graph)
                .isGreaterThanOrEqualTo(graph * 9 / 10)
                .isLessThanOrEqualTo(graph * 3 / 2);
    }
}
