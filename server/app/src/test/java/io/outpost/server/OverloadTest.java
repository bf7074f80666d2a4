package io.outpost.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.server.support.RunningService;
import io.outpost.store.IovStore;
import java.net.http.HttpResponse;
import java.sql.Connection;
import org.junit.jupiter.api.Test;

/** When every read connection is busy, a request waits a bounded time and then gets 503 with Retry-After. */
class OverloadTest {

    @Test
    void saturatedReadPoolGives503WithRetryAfterAndNoLongCacheLife() throws Exception {
        try (RunningService svc = RunningService.startSqliteDemo("--outpost.database.read-pool-size=1",
                "--outpost.database.connection-timeout=300ms")) {
            IovStore store = svc.bean(IovStore.class);
            try (Connection held = store.database().readPool().getConnection()) {
                long t0 = System.nanoTime();
                HttpResponse<byte[]> r = svc.get("/v1/json/count/HEAD/0/100/all/DEMO/Calo/Pedestals");
                long ms = (System.nanoTime() - t0) / 1_000_000;
                assertThat(held.isValid(1)).isTrue();
                assertThat(r.statusCode()).isEqualTo(503);
                assertThat(r.headers().firstValue("Retry-After")).hasValue("1");
                assertThat(r.headers().firstValue("Cache-Control")).hasValue("public, max-age=1");
                assertThat(r.headers().firstValue("Content-Type")).hasValue("application/problem+json");
                assertThat(ms).as("bounded wait").isLessThan(10_000);
            }
            // with the connection back, the same URL answers (the 503 was not cached)
            assertThat(svc.get("/v1/json/count/HEAD/0/100/all/DEMO/Calo/Pedestals").statusCode()).isEqualTo(200);
        }
    }
}
