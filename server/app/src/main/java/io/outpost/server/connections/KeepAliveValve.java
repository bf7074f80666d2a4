package io.outpost.server.connections;

import jakarta.servlet.ServletException;
import java.io.IOException;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.valves.ValveBase;
import org.apache.coyote.ActionCode;

/**
 * Whether a connection is kept after its answer, in the engine's pipeline before anything answers:
 * <ul>
 * <li>a request body the service did not read is not read after the answer either: the connection is closed
 * instead. Tomcat would otherwise swallow it (up to {@code maxSwallowSize}, 2 MB) on the request's thread, and a
 * client sending {@code Content-Length: 1000000} and then a byte every few seconds, below
 * {@code connection-timeout}, would hold that thread for days; 200 such connections held every thread. A read
 * request (GET, HEAD, OPTIONS) that declares a body is answered as usual with {@code Connection: close}; a write
 * refused before its body was read (no token) is closed after its answer.</li>
 * <li>a connection the {@link ConnectionGuard} picked when busy (among the oldest) is answered with
 * {@code Connection: close}.</li>
 * </ul>
 */
public final class KeepAliveValve extends ValveBase {
    private static final Set<String> READS = Set.of("GET", "HEAD", "OPTIONS");

    public KeepAliveValve() {
        super(true);
    }

    @Override
    public void invoke(Request request, Response response) throws IOException, ServletException {
        org.apache.coyote.Request coyote = request.getCoyoteRequest();
        boolean body = coyote.getContentLengthLong() > 0 || request.getHeader("Transfer-Encoding") != null;
        if (ConnectionGuard.closeAfterThisAnswer() || body && READS.contains(request.getMethod())) {
            response.setHeader("Connection", "close");
        }
        getNext().invoke(request, response);
        if (body && !request.isAsync() && !fullyRead(coyote)) {
            // commit the answer as it is, then tell Tomcat not to read the rest (which also ends the connection
            // after the answer: the next request could not be found in the unread body). Said in the answer where
            // it is still open, so the client does not send its next request on this connection.
            if (!response.isCommitted()) {
                response.setHeader("Connection", "close");
            }
            response.flushBuffer();
            coyote.action(ActionCode.DISABLE_SWALLOW_INPUT, null);
        }
    }

    private static boolean fullyRead(org.apache.coyote.Request coyote) {
        AtomicBoolean result = new AtomicBoolean();
        coyote.action(ActionCode.REQUEST_BODY_FULLY_READ, result);
        return result.get();
    }
}
