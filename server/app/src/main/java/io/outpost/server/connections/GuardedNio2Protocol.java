package io.outpost.server.connections;

import java.nio.channels.AsynchronousSocketChannel;
import org.apache.coyote.Processor;
import org.apache.coyote.http11.Http11Nio2Protocol;
import org.apache.tomcat.util.net.Nio2Endpoint;

/** Tomcat's NIO2 HTTP/1.1 connector with the {@link ConnectionGuard} on its accepted sockets. */
public class GuardedNio2Protocol extends Http11Nio2Protocol implements GuardedProtocol {
    private final Endpoint endpoint;

    public GuardedNio2Protocol() {
        this(new Endpoint());
    }

    private GuardedNio2Protocol(Endpoint endpoint) {
        super(endpoint);
        this.endpoint = endpoint;
    }

    @Override
    protected Processor createProcessor() {
        return new GuardedHttp11Processor(this, getAdapter(), endpoint);
    }

    @Override
    public void guard(ConnectionGuard guard) {
        endpoint.guard = guard;
        guard.watch(endpoint);
    }

    private static final class Endpoint extends Nio2Endpoint implements ConnectionGuard.ConnectionGuardHolder {
        private volatile ConnectionGuard guard;

        Endpoint() {
            connections = new ConnectionGuard.Connections<>(this);
        }

        @Override
        public ConnectionGuard guard() {
            return guard;
        }

        @Override
        protected boolean setSocketOptions(AsynchronousSocketChannel socket) {
            if (ConnectionGuard.refuses(guard, socket, socket::getRemoteAddress)) {
                destroySocket(socket); // closed unanswered; Tomcat counts the connection down
                return true;
            }
            return super.setSocketOptions(socket);
        }

        @Override
        protected void destroySocket(AsynchronousSocketChannel socket) {
            super.destroySocket(socket);
            ConnectionGuard.closed(guard, socket);
        }
    }
}
