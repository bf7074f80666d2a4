package io.outpost.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.server.support.RunningService;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Slow and abusive clients do not stop normal requests: 300 slowloris connections (a request head that never
 * ends) and 300 concurrent cache-missing requests, while a normal client keeps getting its answers.
 */
class SlowClientsTest {
    private static final String NORMAL = "/v1/json/count/HEAD/0/100/all/DEMO/Calo/Pedestals";

    @Test
    void slowlorisAndManyMissesDoNotStopNormalRequests() throws Exception {
        List<Socket> slow = new ArrayList<>();
        ExecutorService misses = Executors.newFixedThreadPool(300);
        try (RunningService svc = RunningService.startSqliteDemo()) {
            assertThat(svc.get(NORMAL).statusCode()).isEqualTo(200);
            // slowloris: 300 connections, each with an unfinished request head, kept open
            for (int i = 0; i < 300; i++) {
                Socket s = new Socket(InetAddress.getLoopbackAddress(), svc.port());
                slow.add(s);
                OutputStream out = s.getOutputStream();
                out.write(("GET " + NORMAL + " HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ").getBytes(StandardCharsets.US_ASCII));
                out.flush();
            }
            // 300 concurrent requests that each miss the cache (a different time range each)
            CountDownLatch start = new CountDownLatch(1);
            AtomicInteger n = new AtomicInteger();
            List<CompletableFuture<Integer>> running = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                running.add(CompletableFuture.supplyAsync(() -> {
                    try {
                        start.await();
                        return svc.get("/v1/json/count/HEAD/0/" + (1000 + n.incrementAndGet()) + "/all/DEMO/Calo/Pedestals")
                                .statusCode();
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }, misses));
            }
            start.countDown();
            // meanwhile a normal client is answered (the service's own 30 s request timeout would show a stall)
            for (int i = 0; i < 20; i++) {
                HttpResponse<byte[]> r = svc.get(NORMAL);
                assertThat(r.statusCode()).isEqualTo(200);
            }
            CompletableFuture.allOf(running.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
            for (CompletableFuture<Integer> f : running) {
                // a miss is answered, or refused with 503 when the read pool stays saturated; never a 500
                assertThat(f.get()).isIn(200, 503);
            }
            // the slowloris connections are still open (nothing was closed to make room) and the service answers
            assertThat(slow).allSatisfy(s -> assertThat(s.isClosed()).isFalse());
            assertThat(svc.get(NORMAL).statusCode()).isEqualTo(200);
        } finally {
            misses.shutdownNow();
            misses.awaitTermination(30, TimeUnit.SECONDS);
            for (Socket s : slow) {
                s.close();
            }
        }
    }
}
