package io.outpost.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.micrometer.core.instrument.MeterRegistry;
import io.outpost.frontier.protocol.P1Codec;
import io.outpost.server.support.RunningService;
import io.outpost.store.demo.DemoData;
import io.outpost.testkit.RawHttp;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.coyote.AbstractProtocol;
import org.junit.jupiter.api.Test;
import org.springframework.boot.tomcat.TomcatWebServer;
import org.springframework.boot.web.server.context.WebServerApplicationContext;

/**
 * Connections that hold the service without asking it anything (issue "Hardening", item 1): one host's idle and
 * trickling sockets must not lock other clients out, and a request head sent a byte at a time ends at its deadline.
 */
class HostileConnectionsTest {
    private static final long T = DemoData.T0 + 5 * DemoData.HOUR + 17;
    /** Another host to the service (127.0.0.1 itself is not limited by default). */
    private static final String ATTACKER = "127.0.0.5";
    private static final String CLIENT = "127.0.0.2";
    /** A site cache's address. */
    private static final String SQUID = "127.0.0.3";
    private static final java.util.regex.Pattern REFUSED = java.util.regex.Pattern.compile("reason=\"per-address-limit\"");

    /**
     * 2,000 idle and 1,000 trickling connections from one address against the default limits (1,000 connections):
     * a client on another address still gets a memory hit, a computed answer and a Frontier answer, each well within
     * the lock-out the attack caused before (tens of seconds); the figures (under 1 s on a quiet machine) are printed
     * for docs/operations.md, not asserted, as a loaded test machine stretches them.
     */
    @Test
    void oneHostsIdleAndTricklingConnectionsLockNoOneOut() throws Exception {
        // both ends of every connection are in this JVM: 3,000 client sockets plus up to 1,000 accepted ones
        assumeTrue(maxFileDescriptors() >= 8_192, "needs 8,192 file descriptors (ulimit -n), has " + maxFileDescriptors());
        String hit = "/v1/json/at/HEAD/" + T + "/all/DEMO/Calo/Pedestals";
        String frontier = "/Outpost/Frontier/type=frontier_request:1:DEFAULT&encoding=BLOB&p1="
                + P1Codec.encode("SELECT NODE_FULLPATH FROM OUTPOST_NODES WHERE NODE_ISLEAF = 1 ORDER BY NODE_FULLPATH");
        List<SocketChannel> attack = new ArrayList<>();
        try (RunningService svc = RunningService.startSqliteDemo()) {
            assertThat(svc.get(hit).statusCode()).isEqualTo(200); // now a memory hit
            try {
                // connected without waiting: connections the service does not accept stay pending, as they would
                for (int i = 0; i < 3_000; i++) {
                    attack.add(connect(svc.port()));
                }
                for (int round = 0; round < 3; round++) {
                    for (int i = 2_000; i < attack.size(); i++) { // a request line begun, then one byte a round
                        write(attack.get(i), round == 0 ? "GET /v1/json/nodes HTTP/1.1\r\nX-Slow: " : "a");
                    }
                    for (String target : List.of(hit, "/v1/json/at/HEAD/" + (T + round) + "/all/DEMO/Calo/Pedestals",
                            frontier)) {
                        long start = System.nanoTime();
                        RawHttp r = RawHttp.sendFrom(CLIENT, svc.port(), target, "HTTP/1.1", Map.of("Connection", "close"));
                        byte[] body = r.body();
                        long millis = (System.nanoTime() - start) / 1_000_000;
                        r.close();
                        assertThat(r.status).as(target).isEqualTo(200);
                        assertThat(body).isNotEmpty();
                        System.out.println("normal client beside 3,000 idle and trickling connections, ms: " + millis);
                        assertThat(millis).as("answered, not locked out: " + target).isLessThan(10_000);
                    }
                }
                // what the attacking host is left with: its share, the rest closed unanswered
                // (closed as the service's acceptor reaches them: looked at until so, or for at most 10 s)
                long deadline = System.nanoTime() + 10_000_000_000L;
                long held;
                do {
                    held = attack.stream().filter(HostileConnectionsTest::open).count();
                } while (held > 100 && System.nanoTime() < deadline);
                assertThat(held).isLessThanOrEqualTo(100);
                assertThat(svc.metric("outpost_connections_closed_total", REFUSED)).isPositive();
            } finally {
                for (SocketChannel c : attack) {
                    c.close();
                }
            }
        }
    }

    /**
     * A request head sent one byte every 200 ms (each pause far below connection-timeout) ends at its deadline; so do
     * blank lines before a request line, one every 200 ms (Tomcat skips them and lets go of the connection between
     * them, so only the connection's own first-byte time can end it).
     */
    @Test
    void aTricklingRequestHeadAndBlankLinesAreClosedAtTheDeadline() throws Exception {
        try (RunningService svc = RunningService.startSqliteDemo("--outpost.http.request-head-timeout=1s")) {
            long millis = millisUntilClosed(svc, "GET /v1/json/nodes HTTP/1.1\r\nHost: x\r\n", "X");
            assertThat(millis).as("trickled head closed after (ms; -1: still open after 10 s)").isBetween(800L, 3_000L);
            millis = millisUntilClosed(svc, "", "\r\n");
            assertThat(millis).as("blank lines closed after (ms; -1: still open after 10 s)").isBetween(800L, 3_000L);
            // an ordinary client is not affected, also one that sends a blank line first
            assertThat(svc.get("/v1/json/nodes").statusCode()).isEqualTo(200);
            try (Socket polite = new Socket(InetAddress.getLoopbackAddress(), svc.port())) {
                polite.getOutputStream().write("\r\nGET /v1/json/nodes HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                        .getBytes(StandardCharsets.US_ASCII));
                assertThat(new String(polite.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1))
                        .startsWith("HTTP/1.1 200 ");
            }
            assertThat(svc.metric("outpost_connections_closed_total",
                    java.util.regex.Pattern.compile("reason=\"request-head-timeout\""))).isEqualTo(2.0);
        }
    }

    /**
     * Idle keep-alive connections from 20 addresses (nine each, after one request each) and silent ones (one each)
     * fill a small max-connections (200), as more than ten hosts would fill the default 1,000: from 80 % of it open,
     * idle connections are closed after the busy idle timeout, so a client on another address is answered within
     * seconds, not after the connection timeout (20 s) or keep-alive timeout (60 s). Below that mark an idle
     * keep-alive connection (a Squid's) stays open as before.
     */
    @Test
    void idleConnectionsFromManyAddressesAreClosedSoonerWhenTheLimitIsNear() throws Exception {
        String target = "/v1/json/nodes";
        try (RunningService svc = RunningService.startSqliteDemo("--server.tomcat.max-connections=200",
                "--outpost.http.busy-idle-timeout=2s")) {
            AbstractProtocol<?> connector = (AbstractProtocol<?>) ((TomcatWebServer) ((WebServerApplicationContext)
                    svc.context()).getWebServer()).getTomcat().getConnector().getProtocolHandler();
            // below the mark: a keep-alive connection idle twice the busy idle timeout is kept and used again
            try (Socket squid = new Socket()) {
                squid.bind(new InetSocketAddress(SQUID, 0));
                squid.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), svc.port()));
                assertThat(exchange(squid, target)).startsWith("HTTP/1.1 200 ");
                squid.setSoTimeout(4_000);
                assertThatThrownBy(() -> squid.getInputStream().read()).as("still open after 4 s idle")
                        .isInstanceOf(SocketTimeoutException.class);
                assertThat(exchange(squid, target)).startsWith("HTTP/1.1 200 ");
            }
            assertThat(busyIdleClosures(svc)).isZero();
            // (counted in-process: a request to the service would leave a pooled connection open); Tomcat counts
            // the connection its acceptor waits for too
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (connector.getConnectionCount() > 1 && System.nanoTime() < deadline) {
                Thread.onSpinWait(); // the service closing its end of the Squid's connection
            }
            assertThat(connector.getConnectionCount()).isEqualTo(1);

            List<Socket> silent = new ArrayList<>();
            List<Socket> keptAlive = new ArrayList<>();
            try {
                for (int host = 0; host < 20; host++) { // first the ones that send nothing: idle the longest
                    silent.add(connectFrom("127.0.0." + (10 + host), svc.port()));
                }
                for (int host = 0; host < 20; host++) {
                    for (int i = 0; i < 9; i++) {
                        Socket s = connectFrom("127.0.0." + (10 + host), svc.port());
                        keptAlive.add(s);
                        s.getOutputStream().write(("GET " + target + " HTTP/1.1\r\nHost: x\r\n\r\n")
                                .getBytes(StandardCharsets.US_ASCII));
                    }
                }
                for (Socket s : keptAlive) { // each answered, then held idle without reading the body
                    assertThat(head(s)).startsWith("HTTP/1.1 200 ");
                }
                // the limit is full (looked at until so, for at most 10 s): a further connection waits to be accepted
                deadline = System.nanoTime() + 10_000_000_000L;
                while (connector.getConnectionCount() < 200 && System.nanoTime() < deadline) {
                    Thread.onSpinWait();
                }
                assertThat(connector.getConnectionCount()).isEqualTo(200);

                long start = System.nanoTime();
                RawHttp r = RawHttp.sendFrom(CLIENT, svc.port(), target, "HTTP/1.1", Map.of("Connection", "close"));
                byte[] body = r.body();
                long millis = (System.nanoTime() - start) / 1_000_000;
                r.close();
                assertThat(r.status).isEqualTo(200);
                assertThat(body).isNotEmpty();
                assertThat(millis).as("answered within 6 s (busy idle timeout 2 s)").isLessThan(6_000);
                assertThat(busyIdleClosures(svc)).isPositive();
                // the silent ones, idle the longest, were among those closed (looked at for at most 10 s)
                for (Socket s : silent) {
                    s.setSoTimeout(10_000);
                    assertThat(closedByPeer(s)).as("a silent connection closed").isTrue();
                }
            } finally {
                for (Socket s : silent) {
                    s.close();
                }
                for (Socket s : keptAlive) {
                    s.close();
                }
            }
        }
    }

    /**
     * 200 connections from two addresses, each a GET declaring {@code Content-Length: 1000000} and then sending one
     * body byte every 2 s (issue "Trust at the edges"): Tomcat would swallow the unread body on the request's thread,
     * and 200 such connections held every thread. Each is answered at once and closed without its body being read,
     * and a client on another address is answered throughout; so is a write refused (no token) before its body.
     */
    @Test
    void slowBodiesHoldNoThread() throws Exception {
        String target = "/v1/json/nodes";
        // the per-address limit (50 by default) is not what is tested here: 100 from each address are let in
        try (RunningService svc = RunningService.startSqliteDemo("--outpost.http.max-connections-per-address=100")) {
            List<Socket> slow = new ArrayList<>();
            try {
                for (int i = 0; i < 200; i++) {
                    Socket s = connectFrom(i % 2 == 0 ? "127.0.0.2" : "127.0.0.3", svc.port());
                    slow.add(s);
                    String head = i == 0
                            ? "POST /write/v1/folders/DEMO/Slow HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                            : "GET " + target + " HTTP/1.1\r\nHost: x\r\n";
                    s.getOutputStream().write((head + "Content-Length: 1000000\r\n\r\n{")
                            .getBytes(StandardCharsets.US_ASCII));
                }
                List<Long> millis = new ArrayList<>();
                for (int round = 0; round < 3; round++) {
                    for (Socket s : slow) { // one more body byte each, as long as the service keeps the connection
                        try {
                            s.getOutputStream().write('x');
                        } catch (IOException closedByService) {
                            // answered and closed: nothing more to send
                        }
                    }
                    long start = System.nanoTime();
                    RawHttp r = RawHttp.sendFrom("127.0.0.9", svc.port(), target, "HTTP/1.1",
                            Map.of("Connection", "close"));
                    byte[] body = r.body();
                    millis.add((System.nanoTime() - start) / 1_000_000);
                    r.close();
                    assertThat(r.status).isEqualTo(200);
                    assertThat(body).isNotEmpty();
                    java.util.concurrent.locks.LockSupport.parkNanos(2_000_000_000L); // the attackers' pace
                }
                // (the figure for docs/operations.md; the bound here only says "not held up for good")
                System.out.println("normal client beside 200 slow bodies, ms: " + millis);
                assertThat(millis).allSatisfy(ms -> assertThat(ms).isLessThan(10_000L));
                // every slow connection was answered, told it is closed, and closed with its body unread
                for (int i = 0; i < slow.size(); i++) {
                    Socket s = slow.get(i);
                    s.setSoTimeout(10_000);
                    String head = head(s);
                    assertThat(head).as("connection " + i).startsWith(i == 0 ? "HTTP/1.1 4" : "HTTP/1.1 200 ");
                    if (i > 0) {
                        assertThat(head).containsIgnoringCase("Connection: close");
                    }
                    s.getInputStream().readAllBytes(); // to its end: closed by the service
                }
            } finally {
                for (Socket s : slow) {
                    s.close();
                }
            }
        }
    }

    /**
     * 12 addresses × 100 connections, each sending a cheap GET every second (never idle for the busy idle timeout),
     * fill max-connections (1,300 here, with 100 busy connections of the host itself, which is not limited): the
     * oldest of the limited ones are answered with {@code Connection: close} until the open connections are below
     * the busy mark, so a client whose connection waits to be accepted is answered; the host's own connections are
     * kept, though older.
     */
    @Test
    void busyConnectionsFromManyAddressesAreClosedAfterTheirAnswerWhenTheLimitIsNear() throws Exception {
        assumeTrue(maxFileDescriptors() >= 8_192, "needs 8,192 file descriptors (ulimit -n), has " + maxFileDescriptors());
        String target = "/v1/json/nodes";
        // a long busy idle timeout: what frees places here is the closing after an answer, not the idle timeout
        try (RunningService svc = RunningService.startSqliteDemo("--server.tomcat.max-connections=1300",
                "--outpost.http.max-connections-per-address=100", "--outpost.http.busy-idle-timeout=10s")) {
            AbstractProtocol<?> connector = (AbstractProtocol<?>) ((TomcatWebServer) ((WebServerApplicationContext)
                    svc.context()).getWebServer()).getTomcat().getConnector().getProtocolHandler();
            List<Socket> exempt = new ArrayList<>();
            List<Socket> busy = new ArrayList<>();
            java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
            java.util.concurrent.atomic.AtomicInteger toldToClose = new java.util.concurrent.atomic.AtomicInteger();
            java.util.concurrent.atomic.AtomicInteger exemptToldToClose = new java.util.concurrent.atomic.AtomicInteger();
            List<Thread> drivers = new ArrayList<>();
            try {
                for (int i = 0; i < 100; i++) { // the oldest: the host's own (a local Squid)
                    exempt.add(connectFrom("127.0.0.1", svc.port()));
                }
                for (int host = 0; host < 12; host++) {
                    for (int i = 0; i < 100; i++) {
                        busy.add(connectFrom("127.0.0." + (10 + host), svc.port()));
                    }
                }
                for (Socket s : busy) {
                    s.setSoTimeout(5_000); // one the service has not accepted yet does not stop its driver for long
                }
                List<Socket> all = new ArrayList<>(exempt);
                all.addAll(busy);
                java.util.Set<Socket> exemptSet = java.util.Set.copyOf(exempt);
                for (int d = 0; d < 4; d++) { // four drivers, a quarter of the connections each, a request a second
                    List<Socket> mine = new ArrayList<>();
                    for (int i = d; i < all.size(); i += 4) {
                        mine.add(all.get(i));
                    }
                    drivers.add(Thread.ofPlatform().daemon().start(() -> {
                        while (!stop.get()) {
                            long round = System.nanoTime();
                            for (java.util.Iterator<Socket> it = mine.iterator(); it.hasNext(); ) {
                                try { // all requests of the round first, then their answers: the service works on all
                                    it.next().getOutputStream().write(("GET " + target + " HTTP/1.1\r\nHost: x\r\n\r\n")
                                            .getBytes(StandardCharsets.US_ASCII));
                                } catch (IOException gone) {
                                    it.remove();
                                }
                            }
                            for (java.util.Iterator<Socket> it = mine.iterator(); it.hasNext() && !stop.get(); ) {
                                Socket s = it.next();
                                try {
                                    String head = answer(s);
                                    if (head.toLowerCase(java.util.Locale.ROOT).contains("connection: close")) {
                                        (exemptSet.contains(s) ? exemptToldToClose : toldToClose).incrementAndGet();
                                        s.close();
                                        it.remove();
                                    }
                                } catch (IOException | AssertionError gone) {
                                    it.remove();
                                }
                            }
                            java.util.concurrent.locks.LockSupport.parkNanos(
                                    Math.max(0, 1_000_000_000L - (System.nanoTime() - round))); // the attackers' pace
                        }
                    }));
                }
                // the busy mark (80 %: 1,040) is reached and connections are being told to close (looked at until
                // so, for at most 30 s)
                long deadline = System.nanoTime() + 30_000_000_000L;
                long most = 0;
                while (toldToClose.get() == 0 && System.nanoTime() < deadline) {
                    most = Math.max(most, connector.getConnectionCount());
                    Thread.onSpinWait();
                }
                assertThat(Math.max(most, connector.getConnectionCount())).isGreaterThanOrEqualTo(1040);
                assertThat(toldToClose.get()).isPositive();

                long start = System.nanoTime();
                RawHttp r = RawHttp.sendFrom(CLIENT, svc.port(), target, "HTTP/1.1", Map.of("Connection", "close"));
                byte[] body = r.body();
                long millis = (System.nanoTime() - start) / 1_000_000;
                r.close();
                System.out.println("normal client beside 12 x 100 busy connections at max-connections, ms: " + millis);
                assertThat(r.status).isEqualTo(200);
                assertThat(body).isNotEmpty();
                assertThat(millis).as("answered within 15 s, not held out for good").isLessThan(15_000);
                assertThat(toldToClose.get()).isPositive();
                assertThat(exemptToldToClose.get()).as("the host's own connections are kept").isZero();
                assertThat(svc.metric("outpost_connections_closed_total",
                        java.util.regex.Pattern.compile("reason=\"busy-keep-alive\""))).isPositive();
            } finally {
                stop.set(true);
                for (Thread t : drivers) {
                    t.join(30_000);
                }
                for (Socket s : exempt) {
                    s.close();
                }
                for (Socket s : busy) {
                    s.close();
                }
            }
        }
    }

    private static double busyIdleClosures(RunningService svc) {
        io.micrometer.core.instrument.Counter c = svc.bean(MeterRegistry.class).find("outpost.connections.closed")
                .tag("reason", "busy-idle-timeout").counter();
        return c == null ? 0 : c.count();
    }

    private static Socket connectFrom(String from, int port) throws IOException {
        Socket s = new Socket();
        s.bind(new InetSocketAddress(from, 0));
        s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        s.setSoTimeout(30_000);
        return s;
    }

    /** Sends a GET on a kept connection and reads the whole answer (by its Content-Length): its head. */
    private static String exchange(Socket s, String target) throws IOException {
        s.getOutputStream().write(("GET " + target + " HTTP/1.1\r\nHost: x\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        return answer(s);
    }

    /** Reads a whole answer (by its Content-Length): its head. */
    private static String answer(Socket s) throws IOException {
        String head = head(s);
        java.util.regex.Matcher length = java.util.regex.Pattern.compile("(?i)\r\ncontent-length: *(\\d+)").matcher(head);
        assertThat(length.find()).as(head).isTrue();
        s.getInputStream().readNBytes(Integer.parseInt(length.group(1)));
        return head;
    }

    /** An answer's head, read a byte at a time so that nothing after it is consumed. */
    private static String head(Socket s) throws IOException {
        StringBuilder b = new StringBuilder();
        InputStream in = s.getInputStream();
        int c;
        while (!b.toString().endsWith("\r\n\r\n") && (c = in.read()) != -1) {
            b.append((char) c);
        }
        return b.toString();
    }

    /** Whether the service closed the connection (end of stream or reset) before its read timeout. */
    private static boolean closedByPeer(Socket s) throws IOException {
        try {
            return s.getInputStream().read() == -1;
        } catch (SocketTimeoutException open) {
            return false;
        } catch (IOException reset) {
            return true;
        }
    }

    /**
     * Sends {@code opening}, then {@code each} whenever the service has not closed the connection for 200 ms (the
     * pace of the trickle, far below connection-timeout): the milliseconds until it closed, -1 if not within 10 s.
     */
    private static long millisUntilClosed(RunningService svc, String opening, String each) throws IOException {
        try (Socket slow = new Socket()) {
            slow.bind(new InetSocketAddress(CLIENT, 0));
            slow.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), svc.port()));
            slow.getOutputStream().write(opening.getBytes(StandardCharsets.US_ASCII));
            InputStream in = slow.getInputStream();
            slow.setSoTimeout(200);
            long start = System.nanoTime();
            while (System.nanoTime() - start < 10_000_000_000L) {
                try {
                    slow.getOutputStream().write(each.getBytes(StandardCharsets.US_ASCII));
                    if (in.read() == -1) {
                        return (System.nanoTime() - start) / 1_000_000;
                    }
                } catch (SocketTimeoutException stillOpen) {
                    // not closed yet: send the next bytes
                } catch (IOException reset) {
                    return (System.nanoTime() - start) / 1_000_000;
                }
            }
            return -1;
        }
    }

    /** A connection from the attacking address, begun and not waited for. */
    private static SocketChannel connect(int port) throws IOException {
        SocketChannel c = SocketChannel.open();
        c.configureBlocking(false);
        c.bind(new InetSocketAddress(ATTACKER, 0));
        c.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        return c;
    }

    /** Writes when the connection is established; one the service dropped or has not accepted gets nothing. */
    private static void write(SocketChannel c, String s) {
        try {
            if (c.isConnected() || c.finishConnect()) {
                c.write(ByteBuffer.wrap(s.getBytes(StandardCharsets.US_ASCII)));
            }
        } catch (IOException closedByService) {
            // the service closed it: nothing more to send
        }
    }

    /** Whether the service still holds the connection (no end of stream, no reset). */
    private static boolean open(SocketChannel c) {
        try {
            return (c.isConnected() || c.finishConnect()) && c.read(ByteBuffer.allocate(64)) >= 0;
        } catch (IOException reset) {
            return false;
        }
    }

    private static long maxFileDescriptors() {
        return ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.UnixOperatingSystemMXBean unix
                ? unix.getMaxFileDescriptorCount() : 0;
    }
}
