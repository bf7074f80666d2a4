package io.outpost.loadtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class LoopbackTest {

    @Test
    void acceptsLoopbackTargets() {
        assertThat(Loopback.requireHttp("http://127.0.0.1:8000")).isNotNull();
        assertThat(Loopback.requireHttp("http://localhost:8000/")).isNotNull();
        assertThat(Loopback.requireHttp("http://[::1]:8000/")).isNotNull();
        assertThat(Loopback.requireJdbc("jdbc:postgresql://127.0.0.1:5432/x")).isNotNull();
        assertThat(Loopback.requireJdbc("jdbc:sqlite:/tmp/x.db")).isNotNull();
    }

    @Test
    void refusesEverythingElse() {
        assertThatThrownBy(() -> Loopback.requireHttp("http://10.1.2.3:8000")).hasMessageContaining("loopback");
        assertThatThrownBy(() -> Loopback.requireHttp("http://example.org/")).hasMessageContaining("loopback");
        assertThatThrownBy(() -> Loopback.requireHttp("https://127.0.0.1/")).hasMessageContaining("loopback");
        assertThatThrownBy(() -> Loopback.requireJdbc("jdbc:postgresql://db.example.org:5432/x")).hasMessageContaining("loopback");
        assertThatThrownBy(() -> Loopback.requireJdbc("jdbc:oracle:thin:@//192.168.1.1:1521/x")).hasMessageContaining("loopback");
    }
}
