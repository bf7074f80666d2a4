package io.outpost.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The proxy in front of a real echo server: forwards, cuts, stalls and lets through again. */
class TcpProxyTest {
    private ServerSocket echo;
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @BeforeEach
    void startEcho() throws IOException {
        echo = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        threads.execute(() -> {
            while (!echo.isClosed()) {
                try {
                    Socket s = echo.accept();
                    threads.execute(() -> {
                        try (s; InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
                            in.transferTo(out);
                        } catch (IOException e) {
                            // the peer went away
                        }
                    });
                } catch (IOException e) {
                    return;
                }
            }
        });
    }

    @AfterEach
    void stopEcho() throws IOException {
        echo.close();
        threads.shutdownNow();
    }

    private static Socket connect(TcpProxy proxy) throws IOException {
        Socket s = new Socket(InetAddress.getLoopbackAddress(), proxy.port());
        s.setSoTimeout(2_000);
        return s;
    }

    private static int roundTrip(Socket s, int b) throws IOException {
        s.getOutputStream().write(b);
        s.getOutputStream().flush();
        return s.getInputStream().read();
    }

    @Test
    void forwardsCutsAndRestores() throws Exception {
        try (TcpProxy proxy = new TcpProxy(echo.getLocalPort())) {
            try (Socket s = connect(proxy)) {
                assertThat(roundTrip(s, 'a')).isEqualTo('a');
                proxy.cut();
                assertThatThrownBy(() -> {
                    // a reset connection: the read fails or sees the end, never an echo
                    if (roundTrip(s, 'b') != -1) {
                        throw new AssertionError("echoed after the cut");
                    }
                    throw new IOException("end of stream");
                }).isInstanceOf(IOException.class);
            }
            proxy.restore();
            try (Socket s = connect(proxy)) {
                assertThat(roundTrip(s, 'c')).isEqualTo('c');
            }
        }
    }

    @Test
    void stallKeepsConnectionsOpenButForwardsNothing() throws Exception {
        try (TcpProxy proxy = new TcpProxy(echo.getLocalPort()); Socket s = connect(proxy)) {
            assertThat(roundTrip(s, 'a')).isEqualTo('a');
            proxy.stall();
            assertThatThrownBy(() -> roundTrip(s, 'b')).as("no answer within the read timeout")
                    .isInstanceOf(SocketTimeoutException.class);
        }
    }
}
