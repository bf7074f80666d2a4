package io.outpost.server.config;

import org.springframework.boot.tomcat.TomcatConnectorCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Socket buffers sized for conditions answers: Tomcat's default 8 KB write buffer turns a 600 KB answer into ~75
 * write calls; 256 KB makes it three. Reads use 64 KB for the write API's bulk bodies.
 */
@Configuration(proxyBeanMethods = false)
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
        };
    }
}
