package io.outpost.frontier.cost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class QueryCostLimitsTest {
    @Test
    void readsItsSettingsFromTheContextProperties() {
        QueryCostLimits l = QueryCostLimits.fromProperties(java.util.Map.of("MaxJoinTables", "6",
                "RejectCartesianProducts", "false", "MaxQueryCost", "2.5e5", "MaxRequestsPerClient", "3"));
        assertThat(l).isEqualTo(new QueryCostLimits(6, false, 2.5e5, 3));
        assertThat(QueryCostLimits.fromProperties(java.util.Map.of())).isEqualTo(QueryCostLimits.defaults());
        assertThatThrownBy(() -> QueryCostLimits.fromProperties(java.util.Map.of("MaxJoinTables", "-1")))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
