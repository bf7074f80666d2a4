package io.outpost.server.front;

import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * How the HTTP front listens and what it hands to Tomcat.
 *
 * @param listen         the public address and port (server.address, server.port; port 0 picks a free one)
 * @param threads        event-loop threads, shared by accepting, clients and the connections to Tomcat
 * @param maxConnections client connections held at once; beyond it the front stops accepting until one closes
 * @param idleTimeout    a client connection with nothing in flight and no traffic for this long is closed
 * @param maxHeaderBytes the longest request line and header block accepted (server.max-http-request-header-size)
 * @param nativePrefix   the native API's path prefix, e.g. "/outpost/v1/" (memory hits are looked up under it)
 * @param drainTimeout   how long a stop waits for requests in flight (spring.lifecycle.timeout-per-shutdown-phase)
 * @param nativeTransport Linux's epoll where it loads (outpost.front.native-transport), else the JDK's NIO
 * @param secret         proves to Tomcat that a client address header comes from this front ({@link FrontPeerValve})
 */
public record FrontSettings(InetSocketAddress listen, int threads, int maxConnections, Duration idleTimeout,
                            int maxHeaderBytes, String nativePrefix, Duration drainTimeout,
                            boolean nativeTransport, String secret) {
}
