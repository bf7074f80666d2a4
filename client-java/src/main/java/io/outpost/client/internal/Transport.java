package io.outpost.client.internal;

import io.outpost.client.Route;
import java.io.IOException;
import java.util.Map;

/** Sends one GET on one route. Implementations are thread-safe; {@link #close()} ends what they hold. */
public interface Transport extends AutoCloseable {

    /**
     * @throws ConnectFailedException if no TCP connection to the route's first hop (proxy or server) could be made
     * @throws IOException for failures after connecting (before the status line arrived)
     */
    Response get(Route route, String path, Map<String, String> headers) throws IOException;

    /** Releases what the transport holds (its timer thread); no request is sent after it. */
    @Override
    default void close() {
    }

    /** The first hop could not be reached: refused, unreachable, or connect timeout. */
    final class ConnectFailedException extends IOException {
        public ConnectFailedException(String message, IOException cause) {
            super(message, cause);
        }
    }
}
