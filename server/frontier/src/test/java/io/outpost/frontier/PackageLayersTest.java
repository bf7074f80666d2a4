package io.outpost.frontier;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The module's dependencies point one way: the steps (the root package) use the features (sql, cost, answers,
 * encode), the features use protocol, and nothing imports from a layer above its own, read from the sources' imports.
 */
class PackageLayersTest {
    private static final Path ROOT = Path.of("src/main/java/io/outpost/frontier");
    private static final Pattern IMPORT = Pattern.compile("^import (?:static )?io\\.outpost\\.frontier\\.(\\w+)",
            Pattern.MULTILINE);
    /** What each package below the steps may import from the module. */
    private static final Map<String, Set<String>> ALLOWED = Map.of(
            "protocol", Set.of(),
            "encode", Set.of("protocol"),
            "sql", Set.of("protocol", "encode"),
            "cost", Set.of("protocol", "sql"),
            "answers", Set.of("protocol", "sql", "encode"));

    @Test
    void featuresImportNothingFromTheStepsAndProtocolNothingFromTheFeatures() throws IOException {
        List<String> wrong = new ArrayList<>();
        for (var e : ALLOWED.entrySet()) {
            try (Stream<Path> files = Files.list(ROOT.resolve(e.getKey()))) {
                for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                    Matcher m = IMPORT.matcher(Files.readString(f));
                    while (m.find()) {
                        String to = m.group(1);
                        if (!to.equals(e.getKey()) && !e.getValue().contains(to)) {
                            wrong.add(e.getKey() + "/" + f.getFileName() + " imports " + (Character.isUpperCase(
                                    to.charAt(0)) ? "the steps' " + to : to));
                        }
                    }
                }
            }
        }
        assertThat(ALLOWED.keySet()).as("every package of the module is in a layer")
                .containsExactlyInAnyOrderElementsOf(subpackages());
        assertThat(wrong).isEmpty();
    }

    private static List<String> subpackages() throws IOException {
        try (Stream<Path> dirs = Files.list(ROOT)) {
            return dirs.filter(Files::isDirectory).map(p -> p.getFileName().toString()).toList();
        }
    }
}
