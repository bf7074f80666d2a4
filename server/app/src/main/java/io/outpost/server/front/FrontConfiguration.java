package io.outpost.server.front;

import io.micrometer.core.instrument.MeterRegistry;
import io.outpost.server.web.MemoryHits;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import org.apache.coyote.http11.AbstractHttp11Protocol;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.util.unit.DataSize;

/**
 * The HTTP front ({@link HttpFront}) on the service's public address and port, with Tomcat moved to a free
 * loopback port behind it. {@code outpost.front.enabled=false} gives the port back to Tomcat.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(name = "outpost.front.enabled", havingValue = "true", matchIfMissing = true)
public class FrontConfiguration {

    @Bean
    public FrontSettings frontSettings(ConfigurableEnvironment env) throws Exception {
        String address = env.getProperty("server.address");
        int port = env.getProperty("server.port", Integer.class, 8080);
        InetSocketAddress listen = address == null ? new InetSocketAddress(port)
                : new InetSocketAddress(InetAddress.getByName(address), port);
        int threads = env.getProperty("outpost.front.threads", Integer.class,
                Runtime.getRuntime().availableProcessors());
        int maxConnections = env.getProperty("server.tomcat.max-connections", Integer.class, 8192);
        Duration idle = env.getProperty("server.tomcat.keep-alive-timeout", Duration.class, Duration.ofSeconds(60));
        DataSize header = env.getProperty("server.max-http-request-header-size", DataSize.class, DataSize.ofKilobytes(8));
        String context = env.getProperty("server.servlet.context-path", "");
        Duration drain = env.getProperty("spring.lifecycle.timeout-per-shutdown-phase", Duration.class,
                Duration.ofSeconds(30));
        byte[] secret = new byte[16];
        new SecureRandom().nextBytes(secret);
        return new FrontSettings(listen, threads, maxConnections, idle, (int) header.toBytes(), context + "/v1/",
                drain, env.getProperty("outpost.front.native-transport", Boolean.class, true), HexFormat.of().formatHex(secret));
    }

    /**
     * Tomcat on a free loopback port, trusting the front's client-address header. Runs after Spring Boot's own
     * customizers (which apply server.port) so that its port and address win. Connections from the front live as
     * long as their client's, which the front times out itself: Tomcat must not close them under a request.
     */
    /** Large bodies left by servlets for the front to send (at most an eighth of the heap waiting at once). */
    @Bean
    public HandedBodies handedBodies() {
        return new HandedBodies(Runtime.getRuntime().maxMemory() / 8);
    }

    @Bean
    public WebServerFactoryCustomizer<TomcatServletWebServerFactory> tomcatBehindFront(FrontSettings settings,
                                                                                     HandedBodies bodies) {
        return new TomcatBehindFront(settings, bodies);
    }

    @Bean
    public HttpFront httpFront(MemoryHits hits, FrontSettings settings, WebServerApplicationContext context,
                               ConfigurableEnvironment env, MeterRegistry registry,
                               ObjectProvider<MemoryHitListener> listeners, HandedBodies bodies) {
        return new HttpFront(hits, settings, () -> context.getWebServer().getPort(), env, registry,
                listeners.orderedStream().toList(), bodies);
    }

    private record TomcatBehindFront(FrontSettings settings, HandedBodies bodies)
            implements WebServerFactoryCustomizer<TomcatServletWebServerFactory>, Ordered {
        @Override
        public void customize(TomcatServletWebServerFactory factory) {
            factory.setPort(0);
            factory.setAddress(InetAddress.getLoopbackAddress());
            factory.addEngineValves(new FrontPeerValve(settings.secret(), bodies));
            factory.addConnectorCustomizers(connector -> {
                if (connector.getProtocolHandler() instanceof AbstractHttp11Protocol<?> p) {
                    p.setKeepAliveTimeout(-1);
                    p.setMaxKeepAliveRequests(-1);
                }
            });
        }

        @Override
        public int getOrder() {
            return Ordered.LOWEST_PRECEDENCE;
        }
    }
}
