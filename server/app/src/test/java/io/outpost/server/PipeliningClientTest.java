package io.outpost.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.server.support.RunningService;
import io.outpost.store.demo.DemoData;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * A client that pipelines thousands of requests and never reads (issue "Hardening", item 2): Tomcat answers one
 * request of a connection at a time and reads the next only once the answer is written, so a connection whose
 * answers are not read stops being read once the socket's buffers are full. No queue of answers builds up in the
 * process, and what the connection held is given back when it goes.
 */
class PipeliningClientTest {
    private static final long T = DemoData.T0 + 9 * DemoData.HOUR + 5;

    @Test
    void aClientThatNeverReadsHoldsNoMoreThanTheSocketBuffers() throws Exception {
        try (RunningService svc = RunningService.startSqliteDemo()) {
            String path = "/v1/json/at/HEAD/" + T + "/all/DEMO/Calo/Pedestals";
            int size = svc.get(path).body().length; // computed once: every further GET is a memory hit
            byte[] one = ("GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
            int count = Math.max(12_000, (256 << 20) / size); // 256 MB of answers if all were queued
            byte[] all = new byte[one.length * count];
            for (int i = 0; i < count; i++) {
                System.arraycopy(one, 0, all, i * one.length, one.length);
            }
            BufferPoolMXBean direct = ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
                    .filter(p -> p.getName().equals("direct")).findFirst().orElseThrow();
            long directBefore = direct.getMemoryUsed();
            double servedBefore = memoryHits(svc);
            Socket greedy = new Socket();
            greedy.setReceiveBufferSize(64 << 10);
            greedy.bind(new InetSocketAddress("127.0.0.3", 0));
            greedy.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), svc.port()));
            Thread writer = Thread.ofPlatform().daemon().start(() -> {
                try {
                    OutputStream out = greedy.getOutputStream();
                    out.write(all); // blocks once the service stops reading
                } catch (IOException closed) {
                    // the test closed the socket
                }
            });
            try {
                // an observation window, not a synchronisation: what the service does with the connection in 5 s
                long end = System.nanoTime() + 5_000_000_000L;
                double served = 0;
                while (System.nanoTime() < end) {
                    served = memoryHits(svc) - servedBefore;
                }
                long directGrowth = direct.getMemoryUsed() - directBefore;
                System.out.printf("pipelining client: %d requests sent, %.0f answered (%d bytes each), direct "
                        + "memory +%d KB%n", count, served, size, directGrowth >> 10);
                // the kernel's send and receive buffers (a few MB on loopback) and Tomcat's 256 KB write buffer
                assertThat(served * size).as("bytes of answers produced").isLessThan(16 << 20);
                assertThat(directGrowth).as("direct memory").isLessThan(16 << 20);
            } finally {
                greedy.close();
                writer.join(30_000);
            }
            // the service answers others, and gives back what the connection held
            assertThat(svc.get(path).statusCode()).isEqualTo(200);
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (direct.getMemoryUsed() - directBefore > (4 << 20) && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertThat(direct.getMemoryUsed() - directBefore).as("direct memory after the client left")
                    .isLessThanOrEqualTo(4 << 20);
        }
    }

    private static double memoryHits(RunningService svc) throws Exception {
        return Arrays.stream(svc.getString("/actuator/prometheus").split("\n"))
                .filter(l -> l.startsWith("outpost_requests_seconds_count{") && l.contains("path=\"memory\""))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
    }
}
