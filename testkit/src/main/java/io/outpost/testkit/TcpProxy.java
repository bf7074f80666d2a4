package io.outpost.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A byte-forwarding TCP proxy on 127.0.0.1 between the service and its database, to cause outages in tests:
 * {@link #cut()} resets every open connection and refuses new ones, as a database that went away;
 * {@link #stall()} keeps every socket open but forwards no byte any more, as a database host that stopped
 * answering or a network path that silently drops packets (connections made during a stall are accepted and
 * stalled too, and a stalled connection stays stalled, as one whose path broke);
 * {@link #restore()} lets new connections through again.
 */
public final class TcpProxy implements AutoCloseable {
    private final ServerSocket server;
    private final int targetPort;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "tcp-proxy");
        t.setDaemon(true);
        return t;
    });
    private volatile boolean up = true;
    private volatile boolean stalled;
    /** Connections opened before the latest stall: they forward nothing any more, even after a restore. */
    private final Set<Socket> dead = ConcurrentHashMap.newKeySet();

    public TcpProxy(int targetPort) throws IOException {
        this.targetPort = targetPort;
        this.server = new ServerSocket(0, 100, InetAddress.getLoopbackAddress());
        threads.execute(this::acceptLoop);
    }

    public int port() {
        return server.getLocalPort();
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                return;
            }
            if (!up) {
                reset(client);
                continue;
            }
            if (stalled) {
                open.add(client);
                dead.add(client);
                threads.execute(() -> pump(client, client));
                continue;
            }
            try {
                Socket upstream = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                open.add(client);
                open.add(upstream);
                threads.execute(() -> pump(client, upstream));
                threads.execute(() -> pump(upstream, client));
            } catch (IOException e) {
                reset(client);
            }
        }
    }

    private void pump(Socket from, Socket to) {
        byte[] buf = new byte[16384];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            int n;
            while ((n = in.read(buf)) >= 0) {
                if (dead.contains(from) || dead.contains(to)) {
                    continue; // swallowed: the peer waits for an answer that never comes, its socket still open
                }
                out.write(buf, 0, n);
                out.flush();
            }
        } catch (IOException e) {
            // one side closed or was reset: close the other
        } finally {
            reset(from);
            reset(to);
        }
    }

    private void reset(Socket s) {
        open.remove(s);
        dead.remove(s);
        try {
            s.setSoLinger(true, 0);
            s.close();
        } catch (IOException e) {
            // already closed
        }
    }

    /** Resets every open connection and refuses new ones until {@link #restore()}. */
    public void cut() {
        up = false;
        for (Socket s : open) {
            reset(s);
        }
    }

    /**
     * Stops forwarding bytes on every open connection without closing any; new connections are accepted and
     * stalled as well, until {@link #restore()}.
     */
    public void stall() {
        stalled = true;
        dead.addAll(open);
    }

    /** New connections are forwarded again; connections stalled before stay stalled until their peer closes them. */
    public void restore() {
        stalled = false;
        up = true;
    }

    @Override
    public void close() throws IOException, InterruptedException {
        server.close();
        cut();
        threads.shutdownNow();
        threads.awaitTermination(5, TimeUnit.SECONDS);
    }
}
