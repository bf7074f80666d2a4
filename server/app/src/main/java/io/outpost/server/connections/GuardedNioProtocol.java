package io.outpost.server.connections;

import java.nio.channels.SocketChannel;
import org.apache.coyote.http11.Http11NioProtocol;
import org.apache.tomcat.util.net.NioEndpoint;

/** Tomcat's NIO HTTP/1.1 connector with the {@link ConnectionGuard} on its accepted sockets. */
public class GuardedNioProtocol extends Http11NioProtocol implements GuardedProtocol {
    private final Endpoint endpoint;

    public GuardedNioProtocol() {
        this(new Endpoint());
    }

    private GuardedNioProtocol(Endpoint endpoint) {
        super(endpoint);
        this.endpoint = endpoint;
    }

    @Override
    public void guard(ConnectionGuard guard) {
        endpoint.guard = guard;
        guard.watch(endpoint);
    }

    private static final class Endpoint extends NioEndpoint implements ConnectionGuard.ConnectionGuardHolder {
        private volatile ConnectionGuard guard;

        Endpoint() {
            connections = new ConnectionGuard.Connections<>(this);
        }

        @Override
        public ConnectionGuard guard() {
            return guard;
        }

        @Override
        protected boolean setSocketOptions(SocketChannel socket) {
            if (ConnectionGuard.refuses(guard, socket, socket::getRemoteAddress)) {
                destroySocket(socket); // closed unanswered; Tomcat counts the connection down
                return true;
            }
            return super.setSocketOptions(socket);
        }

        @Override
        protected void destroySocket(SocketChannel socket) {
            super.destroySocket(socket);
            ConnectionGuard.closed(guard, socket);
        }
    }
}
