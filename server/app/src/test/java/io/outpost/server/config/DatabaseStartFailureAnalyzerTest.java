package io.outpost.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outpost.server.OutpostApplication;
import io.outpost.store.db.DatabaseUnusableException;
import io.outpost.testkit.MariaDbServer;
import io.outpost.testkit.TempDirs;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Collections;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** A start against a database that refuses the login fails with the reason and the settings to check. */
class DatabaseStartFailureAnalyzerTest {
    @Test
    void wrongPasswordStopsTheStartWithItsReason() {
        String url = MariaDbServer.shared().createDatabase("start_failure");
        Path dir = TempDirs.create("outpost-start-failure");
        assertThatThrownBy(() -> new SpringApplicationBuilder(OutpostApplication.class).run("--server.port=0",
                "--outpost.database.url=" + url, "--outpost.database.user=root", "--outpost.database.password=wrong",
                "--spring.profiles.active=test", "--server.tomcat.basedir=" + dir.resolve("tomcat")))
                .satisfies(e -> {
                    FailureAnalysis a = new DatabaseStartFailureAnalyzer().analyze(e);
                    assertThat(a).as("the start failure is analysed").isNotNull();
                    assertThat(a.getDescription()).contains("cannot connect to the database " + url)
                            .contains("as user 'root'").contains("Access denied");
                    assertThat(a.getAction()).contains("outpost.database.password");
                });
    }

    @Test
    void analyzerIsRegisteredAndKeepsToItsFailure() throws Exception {
        StringBuilder factories = new StringBuilder();
        for (URL u : Collections.list(getClass().getClassLoader().getResources("META-INF/spring.factories"))) {
            try (InputStream in = u.openStream()) {
                factories.append(new String(in.readAllBytes(), StandardCharsets.UTF_8));
            }
        }
        assertThat(factories.toString()).contains(DatabaseStartFailureAnalyzer.class.getName());
        assertThat(new DatabaseStartFailureAnalyzer().analyze(new IllegalStateException("other"))).isNull();
        assertThat(new DatabaseUnusableException("x", null)).isInstanceOf(IllegalStateException.class);
    }
}
