package io.outpost.server;

import io.outpost.server.config.OutpostProperties;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;

/** Outpost: conditions data over cacheable HTTP. */
@SpringBootApplication
@EnableConfigurationProperties(OutpostProperties.class)
public class OutpostApplication {

    public static void main(String[] args) {
        SpringApplication.run(OutpostApplication.class, args);
    }
}
