package io.outpost.loadtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outpost.store.model.ValidityKey;
import io.outpost.store.workload.Workload;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class WorkloadPlanTest {

    @Test
    void smallQueriesIsOneAtQueryPerFolderInsideTheMiddleIov() {
        WorkloadPlan p = WorkloadPlan.of(Workload.SMALL_QUERIES, 0.1);
        assertThat(p.queries()).hasSize(20);
        assertThat(p.queries()).allSatisfy(q -> {
            assertThat(q.isAt()).isTrue();
            assertThat(q.expectedRows()).isEqualTo(500);
            assertThat(q.t1()).isEqualTo(Workload.T0 + 25 * 1_000_000_000L + 1);
        });
        assertThat(p.queries()).extracting(Query::folder).doesNotHaveDuplicates().first().isEqualTo("/LOAD/smallQueries/F000");
        assertThat(p.query(20)).isEqualTo(p.query(0));
        assertThat(p.rowsPerRound()).isEqualTo(20 * 500);
        // distinct keys stay inside the IOV [T0 + 25 s, T0 + 26 s)
        Query far = p.queries().get(0).distinct(899_999_998L);
        assertThat(far.t1()).isLessThan(Workload.T0 + 26 * 1_000_000_000L);
    }

    @Test
    void likeLuisAndCoolBrowseShapes() {
        Query iov = WorkloadPlan.of(Workload.LIKE_LUIS_1IOV, 0.1).queries().getFirst();
        assertThat(iov.path()).isEqualTo("/v1/bin/at/HEAD/" + (Workload.T0 + 1) + "/all/LOAD/likeLuis1iov");
        assertThat(iov.expectedRows()).isEqualTo(1000);
        Query channel = WorkloadPlan.of(Workload.LIKE_LUIS_1CHANNEL, 0.1).queries().getFirst();
        assertThat(channel.isAt()).isFalse();
        assertThat(channel.t2()).isEqualTo(ValidityKey.MAX);
        assertThat(channel.expectedRows()).isEqualTo(1000);
        assertThat(channel.path()).isEqualTo("/v1/bin/browse/HEAD/" + Workload.T0 + "/" + ValidityKey.MAX + "/all/cs/LOAD/likeLuis1channel");
        assertThat(WorkloadPlan.of(Workload.COOL_BROWSE, 0.1).queries().getFirst().expectedRows()).isEqualTo(10 * 2000);
        assertThatThrownBy(() -> WorkloadPlan.of(Workload.COOL_FLAT, 0.1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void distinctKeysGiveDistinctUrlsWithTheSameAnswerSize() {
        for (Workload w : List.of(Workload.LIKE_LUIS_1IOV, Workload.LIKE_LUIS_1CHANNEL, Workload.SMALL_QUERIES)) {
            Query q = WorkloadPlan.of(w, 0.1).queries().getFirst();
            Set<String> urls = new HashSet<>();
            LongStream.range(0, 1000).forEach(n -> urls.add(q.distinct(n).path()));
            assertThat(urls).hasSize(1000).doesNotContain(q.path());
            assertThat(q.distinct(7).expectedRows()).isEqualTo(q.expectedRows());
            assertThat(q.distinct(7).folder()).isEqualTo(q.folder());
        }
        Query browse = WorkloadPlan.of(Workload.COOL_BROWSE, 0.1).queries().getFirst();
        assertThat(browse.distinct(5).t1()).isLessThan(Workload.T0).isPositive();
    }

    @Test
    void atlasSnapshotsAndSchedule() {
        List<Query> s0 = WorkloadPlan.atlasSnapshot(0.02, 0);
        List<Query> s1 = WorkloadPlan.atlasSnapshot(0.02, 1);
        assertThat(s0).hasSize(2).allSatisfy(q -> assertThat(q.expectedRows()).isEqualTo(1000));
        // the window key starts after every channel's staggered edge (1000 channels x 3 ms)
        assertThat(s0.getFirst().t1()).isEqualTo(Workload.T0 + 3_000_000_000L);
        assertThat(s1.getFirst().t1() - s0.getFirst().t1()).isEqualTo(WorkloadPlan.ATLAS_WINDOW);
        // windows wrap around the 5 hours of data
        assertThat(WorkloadPlan.atlasSnapshot(0.02, 3600).getFirst()).isEqualTo(s0.getFirst());

        AtlasModel.Params p = new AtlasModel.Params(20, Duration.ofSeconds(1), Duration.ofSeconds(5), 2,
                Duration.ofSeconds(5), 0.01);
        assertThat(AtlasModel.startOf(p, 0, 0)).isEqualTo(Duration.ZERO);
        assertThat(AtlasModel.startOf(p, 19, 1)).isEqualTo(Duration.ofSeconds(24));
        assertThat(p.span()).isEqualTo(Duration.ofSeconds(29));
        assertThatThrownBy(() -> new AtlasModel.Params(0, Duration.ZERO, Duration.ZERO, 1, Duration.ZERO, 1))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
