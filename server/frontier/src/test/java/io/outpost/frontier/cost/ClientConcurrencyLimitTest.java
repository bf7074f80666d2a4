package io.outpost.frontier.cost;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ClientConcurrencyLimitTest {
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
    }
}
