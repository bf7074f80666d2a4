package io.outpost.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outpost.server.support.AccessLogCapture;
import io.outpost.server.support.RunningService;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Who the service thinks a client is (the access log's first field, and the key of the per-client Frontier limit,
 * which is the same {@code getRemoteAddr()}): the connection's peer, or the address a trusted proxy forwarded.
 * Clients connect from chosen loopback addresses (127.0.0.2 plays the site's Squid).
 */
class ClientAddressTest {

    @Test
    void aDirectClientCannotPickItsOwnAddress() throws Exception {
        try (RunningService svc = RunningService.startSqliteDemo("--logging.level.outpost.access=info")) {
            // a servlet request, and a Frontier request whose limit key is this same address
            String line = loggedLine(svc, "127.0.0.2", "/v1/json/nodes", "10.1.2.3");
            assertThat(line).startsWith("127.0.0.2 ").contains("xff=\"10.1.2.3\"");
            String frontier = loggedLine(svc, "127.0.0.2", "/Outpost/Frontier/type=frontier_request:1:DEFAULT"
                    + "&encoding=BLOB&p1=" + io.outpost.frontier.protocol.P1Codec.encode("SELECT 1 FROM DUAL"), "10.1.2.4");
            assertThat(frontier).startsWith("127.0.0.2 ").doesNotStartWith("10.1.2.4");
        }
    }

    @Test
    void aTrustedProxyForwardsItsClientsAddressAndNoOneElseDoes() throws Exception {
        try (RunningService svc = RunningService.startSqliteDemo("--logging.level.outpost.access=info",
                "--outpost.trusted-proxies=127.0.0.2, 192.0.2.0/28")) {
            assertThat(loggedLine(svc, "127.0.0.2", "/v1/json/nodes", "198.51.100.7")).startsWith("198.51.100.7 ");
            // the client's own claim before the proxy's entry is not believed: the proxy vouches for its peer only
            assertThat(loggedLine(svc, "127.0.0.2", "/v1/json/nodes", "203.0.113.9, 198.51.100.8"))
                    .startsWith("198.51.100.8 ");
            assertThat(loggedLine(svc, "127.0.0.1", "/v1/json/nodes", "198.51.100.9")).startsWith("127.0.0.1 ");
            // a memory hit, answered before the servlet dispatch, is attributed the same way
            String hit = "/v1/json/at/HEAD/" + io.outpost.store.demo.DemoData.T0 + "/all/DEMO/Calo/Pedestals";
            assertThat(svc.get(hit).statusCode()).isEqualTo(200);
            assertThat(loggedLine(svc, "127.0.0.2", hit, "198.51.100.10")).startsWith("198.51.100.10 ");
        }
    }

    @Test
    void trustedProxiesAreAddressesOrCidrBlocksNeverNames() {
        assertThat(io.outpost.server.config.TrustedProxies.toCidrs(List.of(" 192.0.2.10", "::1", "192.0.2.0/28", "")))
                .isEqualTo("192.0.2.10/32, ::1/128, 192.0.2.0/28");
        assertThat(io.outpost.server.config.TrustedProxies.toCidrs(List.of())).isNull();
        assertThatThrownBy(() -> io.outpost.server.config.TrustedProxies.toCidrs(List.of("squid.example.org")))
                .hasMessageContaining("not an IP address");
        assertThatThrownBy(() -> io.outpost.server.config.TrustedProxies.toCidrs(List.of("192.0.2.0/99")))
                .hasMessageContaining("not an IP address");
    }

    /** The access-log line of one GET sent from {@code from} with an X-Forwarded-For and an X-Frontier-Id. */
    private static String loggedLine(RunningService svc, String from, String target, String forwardedFor)
            throws IOException {
        String marker = UUID.randomUUID().toString();
        try (AccessLogCapture log = new AccessLogCapture(); Socket s = new Socket()) {
            s.bind(new InetSocketAddress(from, 0));
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), svc.port()));
            s.setSoTimeout(30_000);
            s.getOutputStream().write(("GET " + target + " HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: " + forwardedFor
                    + "\r\nX-Frontier-Id: " + marker + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            String answer = new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
            assertThat(answer).startsWith("HTTP/1.1 ");
            return log.awaitLine(marker).stream().filter(l -> l.contains(marker)).findFirst()
                    .orElseThrow(() -> new AssertionError("no access-log line for " + target));
        }
    }
}
