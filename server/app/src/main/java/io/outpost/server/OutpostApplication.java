package io.outpost.server;

import io.outpost.server.config.OutpostProperties;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.event.ApplicationFailedEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.boot.web.server.PortInUseException;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;

/** Outpost: conditions data over cacheable HTTP. */
@SpringBootApplication
@EnableConfigurationProperties(OutpostProperties.class)
public class OutpostApplication {

    public static void main(String[] args) {
        SpringApplication app = new SpringApplication(OutpostApplication.class);
        app.addListeners((ApplicationListener<ApplicationFailedEvent>) OutpostApplication::portInUse);
        app.run(args);
    }

    /**
     * A taken port ends the start with one line naming it and exit status 2, instead of Spring Boot's report (only
     * when started from the command line: a test's or an embedding application's JVM is not ended).
     */
    private static void portInUse(ApplicationFailedEvent failed) {
        for (Throwable t = failed.getException(); t != null; t = t.getCause()) {
            if (t instanceof PortInUseException inUse) {
                System.err.println("outpost: port " + inUse.getPort() + " is already in use (server.port); stop what "
                        + "listens there or start with --server.port=<another port>");
                System.exit(2);
            }
        }
    }
}
