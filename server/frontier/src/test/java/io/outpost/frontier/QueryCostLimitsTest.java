package io.outpost.frontier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class QueryCostLimitsTest {
    @Test
    void noLimitsAcceptCartesianProducts() {
        assertThat(QueryCostLimits.none().rejectCartesian()).isFalse();
    }

    @Test
    void readsItsSettingsFromTheContextProperties() {
        QueryCostLimits l = QueryCostLimits.fromProperties(java.util.Map.of("MaxJoinTables", "6",
                "RejectCartesianProducts", "false", "MaxQueryCost", "2.5e5", "MaxRequestsPerClient", "3"));
        assertThat(l).isEqualTo(new QueryCostLimits(6, false, 2.5e5, 3));
        assertThat(QueryCostLimits.fromProperties(java.util.Map.of())).isEqualTo(QueryCostLimits.defaults());
        assertThatThrownBy(() -> QueryCostLimits.fromProperties(java.util.Map.of("MaxJoinTables", "-1")))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void clientLimitCountsPerClient() {
        ClientConcurrencyLimit limit = new ClientConcurrencyLimit(2);
        assertThat(limit.tryAcquire("a")).isTrue();
        assertThat(limit.tryAcquire("a")).isTrue();
        assertThat(limit.tryAcquire("a")).isFalse();
        assertThat(limit.tryAcquire("b")).isTrue();
        limit.release("a");
        assertThat(limit.tryAcquire("a")).isTrue();
        limit.release("a");
        limit.release("a");
        limit.release("b");
        assertThat(limit.activeClients()).isZero();
        assertThat(ClientConcurrencyLimit.clientKey("id", "10.0.0.1, 10.0.0.2", "127.0.0.1")).isEqualTo("10.0.0.1 id");
        assertThat(ClientConcurrencyLimit.clientKey("id", null, "127.0.0.1")).isEqualTo("127.0.0.1 id");
    }
}
