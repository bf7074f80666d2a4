package io.outpost.client.pac;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The shared proxy auto-config cases of testdata/pac/cases.txt, which the C++ client runs too. */
class PacCasesTest {
    static final Path DIR = Path.of(System.getProperty("outpost.testdata", "../testdata")).resolve("pac");

    record Case(String pacFile, String serverUrl, String expected) {
        @Override
        public String toString() {
            return pacFile + " " + serverUrl + " => " + expected;
        }
    }

    static Stream<Case> cases() throws IOException {
        List<Case> out = new ArrayList<>();
        for (String line : Files.readAllLines(DIR.resolve("cases.txt"))) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            String[] halves = line.split("=>", 2);
            String[] left = halves[0].strip().split("\\s+");
            out.add(new Case(left[0], left[1], halves[1].strip()));
        }
        assertThat(out).hasSizeGreaterThan(5);
        return out.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void answersAsTheCaseSays(Case c) throws IOException {
        String pacUrl = DIR.resolve(c.pacFile()).toUri().toString();
        String host = URI.create(c.serverUrl()).getHost();
        if (c.expected().equals("error")) {
            assertThatThrownBy(() -> PacAnswer.parse(
                    PacScript.compile(Files.readString(DIR.resolve(c.pacFile())), pacUrl).findProxy(c.serverUrl(), host),
                    pacUrl)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining(pacUrl);
            return;
        }
        PacScript script = PacScript.compile(Files.readString(DIR.resolve(c.pacFile())), pacUrl);
        assertThat(PacAnswer.parse(script.findProxy(c.serverUrl(), host), pacUrl)).hasToString(c.expected());
    }
}
