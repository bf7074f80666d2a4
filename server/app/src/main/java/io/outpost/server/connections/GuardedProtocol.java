package io.outpost.server.connections;

/** A Tomcat HTTP/1.1 protocol whose endpoint reports its connections to a {@link ConnectionGuard}. */
public interface GuardedProtocol {
    /** Installs the guard; called by the connector customiser before the connector starts accepting. */
    void guard(ConnectionGuard guard);
}
