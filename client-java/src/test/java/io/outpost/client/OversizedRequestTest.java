package io.outpost.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.outpost.client.internal.Failover;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A request is bounded in time even against a peer that accepts connections and never reads them.
 * {@code HttpURLConnection} has no send timeout, so a request path of megabytes would wait on the send without limit;
 * paths longer than any server or proxy accepts are refused before anything is sent, and shorter ones fit the socket
 * buffers and end with the read timeout.
 */
class OversizedRequestTest {
    private ServerSocket silent;
    private final List<Socket> accepted = new CopyOnWriteArrayList<>();
    private Thread acceptor;
    private OutpostClient client;

    @BeforeEach
    void silentPeer() throws IOException {
        silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        acceptor = new Thread(() -> {
            try {
                while (true) {
                    accepted.add(silent.accept()); // held open, never read
                }
            } catch (IOException e) {
                // closed by the test
            }
        }, "silent-peer");
        acceptor.start();
        client = OutpostClient.create(ClientConfig.builder().server("http://127.0.0.1:" + silent.getLocalPort())
                .retries(0).connectTimeout(Duration.ofSeconds(2)).readTimeout(Duration.ofSeconds(1)).build());
    }

    @AfterEach
    void close() throws Exception {
        client.close();
        silent.close();
        acceptor.join();
        for (Socket s : accepted) {
            s.close();
        }
    }

    @Test
    void aPathOfMegabytesIsRefusedBeforeAnythingIsSent() {
        OutpostException e = assertTimeoutPreemptively(Duration.ofSeconds(30),
                () -> catchThrowableOfType(OutpostException.class, () -> client.tags("/" + "x".repeat(20_000_000))));
        assertThat(e).isNotNull();
        assertThat(e.kind()).isEqualTo(OutpostException.Kind.REJECTED);
        assertThat(e.getMessage()).contains("not sent").contains(String.valueOf(Failover.MAX_PATH_CHARS));
        assertThat(accepted).as("connections the peer saw").isEmpty();
    }

    @Test
    void aPathJustWithinTheLimitIsSentAndEndsWithTheReadTimeout() {
        String folder = "/" + "x".repeat(Failover.MAX_PATH_CHARS - 200);
        OutpostException e = assertTimeoutPreemptively(Duration.ofSeconds(30),
                () -> catchThrowableOfType(OutpostException.class, () -> client.tags(folder)));
        assertThat(e).isNotNull();
        // the message ends with the last attempt's failure (it starts with the 64 KB path)
        String message = e.getMessage();
        assertThat(message.substring(message.length() - 200)).endsWith("no answer within the read timeout");
        assertThat(accepted).as("connections the peer saw").isNotEmpty();
    }
}
