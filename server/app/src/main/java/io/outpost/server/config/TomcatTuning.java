package io.outpost.server.config;

import io.outpost.server.connections.ConnectionGuard;
import io.outpost.server.connections.GuardedNio2Protocol;
import io.outpost.server.connections.GuardedProtocol;
import io.outpost.server.connections.HttpProperties;
import io.outpost.server.connections.KeepAliveValve;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.tomcat.TomcatConnectorCustomizer;
import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Tomcat, the service's one HTTP server (its limits and timeouts are Spring Boot's {@code server.*} keys in
 * application.yml; docs/operations.md, "The HTTP server"). Socket buffers sized for conditions answers: Tomcat's
 * default 8 KB write buffer turns a 600 KB answer into ~75 write calls; 256 KB makes it three. Reads use 64 KB for
 * the write API's bulk bodies. Bodies a client offers with "Expect: 100-continue" are asked for only when read.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(HttpProperties.class)
public class TomcatTuning {

    @Bean
    public TomcatConnectorCustomizer largeAnswerBuffers() {
        return connector -> {
            connector.setProperty("socket.appWriteBufSize", "262144");
            connector.setProperty("socket.txBufSize", "1048576");
            connector.setProperty("socket.directBuffer", "true");
            // Bulk IOV uploads of the write API (about 10 MB a batch): with 8 KB reads Tomcat wakes the request
            // thread once per 8 KB of body.
            connector.setProperty("socket.appReadBufSize", "65536");
            connector.setProperty("socket.rxBufSize", "1048576");
            // "Expect: 100-continue" (curl, for bodies over 1 MB) is answered when the servlet reads the body, not
            // at once: an upload refused for its size or its token is refused before the client sends it.
            connector.setProperty("continueResponseTiming", "onRead");
        };
    }

    /**
     * Tomcat's NIO2 connector (with the connection guard): a request finished on a worker thread hands its
     * connection straight back to the kernel's completion port, where NIO wakes its poller thread and re-registers
     * the socket per request. On 2 cores that took a ~1 KB cache hit from ~12 to ~9 us of Tomcat CPU, and NIO2 was
     * ahead in every side-by-side run (docs/decisions.md), so NIO is no longer offered.
     */
    @Bean
    public WebServerFactoryCustomizer<TomcatServletWebServerFactory> connectorProtocol() {
        return factory -> factory.setProtocol(GuardedNio2Protocol.class.getName());
    }

    /**
     * The limits Tomcat lacks: connections per client address ({@code outpost.http.max-connections-per-address},
     * trusted proxies and {@code outpost.http.unlimited-addresses} exempt), a deadline for a request's head
     * ({@code outpost.http.request-head-timeout}) and a shorter idle timeout when busy
     * ({@code outpost.http.busy-connections-percent} of max-connections open, {@code outpost.http.busy-idle-timeout}).
     */
    @Bean(destroyMethod = "close")
    public ConnectionGuard connectionGuard(TrustedProxies proxies, HttpProperties http,
                                           io.micrometer.core.instrument.MeterRegistry registry) {
        TrustedProxies unlimited = new TrustedProxies(http.unlimitedAddresses());
        return new ConnectionGuard(http.maxConnectionsPerAddress(), http.ipv6PrefixLength(), http.requestHeadTimeout(),
                a -> proxies.contains(a) || unlimited.contains(a), http.busy(), registry);
    }

    /**
     * Whether a connection is kept after its answer ({@link KeepAliveValve}): first in the engine's pipeline after
     * Spring Boot's own valves, before the memory-hit valve answers anything.
     */
    @Bean
    public WebServerFactoryCustomizer<TomcatServletWebServerFactory> keepAliveValve() {
        return new KeepAliveValveFirst();
    }

    private record KeepAliveValveFirst() implements WebServerFactoryCustomizer<TomcatServletWebServerFactory>,
            org.springframework.core.Ordered {
        @Override
        public void customize(TomcatServletWebServerFactory factory) {
            factory.addEngineValves(new KeepAliveValve());
        }

        @Override
        public int getOrder() {
            return org.springframework.core.Ordered.LOWEST_PRECEDENCE - 1; // the memory-hit valve is added last
        }
    }

    @Bean
    public TomcatConnectorCustomizer guardedConnections(ConnectionGuard guard) {
        return connector -> {
            if (connector.getProtocolHandler() instanceof GuardedProtocol guarded) {
                guarded.guard(guard);
            }
        };
    }

    /** {@code outpost.trusted-proxies}: a list (YAML) or comma-separated addresses and CIDR blocks; none by default. */
    @Bean
    public TrustedProxies trustedProxies(OutpostProperties props) {
        return new TrustedProxies(props.trustedProxies());
    }
}
