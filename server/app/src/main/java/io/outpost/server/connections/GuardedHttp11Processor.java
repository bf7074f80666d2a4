package io.outpost.server.connections;

import java.io.IOException;
import org.apache.coyote.Adapter;
import org.apache.coyote.http11.AbstractHttp11Protocol;
import org.apache.coyote.http11.Http11Processor;
import org.apache.tomcat.util.net.AbstractEndpoint.Handler.SocketState;
import org.apache.tomcat.util.net.SocketWrapperBase;

/**
 * Tomcat's HTTP/1.1 processor, telling the {@link ConnectionGuard} when it starts on a connection's bytes and when it
 * lets go of the connection between requests (idle from then on, for the shorter idle timeout when busy), and
 * whether it had sent blank lines and no request line yet: Tomcat skips such lines (as RFC 9112 asks) and keeps no
 * processor, and with it no start time, between them, so a blank line every few seconds would hold the connection
 * for ever.
 */
final class GuardedHttp11Processor extends Http11Processor {
    private final ConnectionGuard.ConnectionGuardHolder holder;

    GuardedHttp11Processor(AbstractHttp11Protocol<?> protocol, Adapter adapter,
                           ConnectionGuard.ConnectionGuardHolder holder) {
        super(protocol, adapter);
        this.holder = holder;
    }

    @Override
    public SocketState service(SocketWrapperBase<?> socket) throws IOException {
        ConnectionGuard.Activity activity = ConnectionGuard.serving(holder.guard(), socket);
        SocketState state = SocketState.CLOSED;
        try {
            state = super.service(socket);
        } finally {
            // OPEN: the processor is released, waiting for the next request; a start time then means blank lines
            // only (a finished request resets it)
            ConnectionGuard.letGo(activity, state == SocketState.OPEN, getRequest().getStartTimeNanos());
        }
        return state;
    }
}
