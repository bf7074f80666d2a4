package io.outpost.store.db;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * What differs per database is asked of its dialect (the store's {@link Dialect}, the Frontier endpoint's
 * FrontierDialect), never decided by testing which database it is: this scans the server's main sources for such a
 * test outside the dialect classes themselves.
 */
class DialectBoundaryTest {
    private static final String NAMES = "(sqlite|postgres|postgresql|mariadb|mysql|oracle)";

    /** What a test of the database's kind looks like. */
    static final List<Pattern> KIND_TESTS = List.of(
            Pattern.compile("instanceof\\s+\\w*Dialect\\b"),
            Pattern.compile("(?i)\\.name\\(\\)\\s*\\.equals(IgnoreCase)?\\(\\s*\"" + NAMES + "\""),
            Pattern.compile("(?i)\"" + NAMES + "\"\\s*\\.equals(IgnoreCase)?\\("),
            Pattern.compile("(?i)\\.contains\\(\\s*\"" + NAMES + "\"\\s*\\)"),
            Pattern.compile("(?i)case\\s+\"" + NAMES + "\""),
            Pattern.compile("getDatabaseProductName"),
            Pattern.compile("SqlGuard\\.Target\\b"));

    /** The dialect classes: the one place that knows which database it is. */
    private static boolean isDialectClass(Path p) {
        String file = p.getFileName().toString();
        return file.endsWith("Dialect.java") || file.equals("FrontierDialects.java");
    }

    @Test
    void noDatabaseKindTestOutsideTheDialects() throws IOException {
        Path server = Path.of("..").toAbsolutePath().normalize();
        List<Path> sources = new ArrayList<>();
        try (Stream<Path> modules = Files.list(server)) {
            for (Path module : modules.toList()) {
                Path main = module.resolve("src/main/java");
                if (Files.isDirectory(main)) {
                    try (Stream<Path> files = Files.walk(main)) {
                        files.filter(f -> f.toString().endsWith(".java")).forEach(sources::add);
                    }
                }
            }
        }
        // the scan sees the store, the Frontier module and the application, or it proves nothing
        assertThat(sources).anyMatch(p -> p.endsWith("io/outpost/store/db/Database.java"))
                .anyMatch(p -> p.endsWith("io/outpost/frontier/sql/SqlGuard.java"))
                .anyMatch(p -> p.endsWith("io/outpost/server/write/WriteVisibility.java"));
        List<String> found = new ArrayList<>();
        for (Path p : sources) {
            if (isDialectClass(p)) {
                continue;
            }
            List<String> lines = Files.readAllLines(p);
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i);
                if (KIND_TESTS.stream().anyMatch(k -> k.matcher(line).find())) {
                    found.add(server.relativize(p) + ":" + (i + 1) + ": " + line.strip());
                }
            }
        }
        assertThat(found).as("tests of which database it is, outside the dialect classes: ask the dialect instead")
                .isEmpty();
    }

    @Test
    void thePatternsCatchTheShapesTheyAreFor() {
        List<String> kindTests = List.of(
                "if (db.dialect() instanceof MariaDbDialect) {",
                "if (!context.database().dialect().name().equals(\"sqlite\")) {",
                "boolean mariaDb = product.contains(\"mariadb\");",
                "case \"postgresql\" -> Target.POSTGRESQL;",
                "String product = md.getDatabaseProductName();",
                "boolean sqlite = \"SQLite\".equalsIgnoreCase(product);",
                "SqlGuard.Target target = SqlGuard.targetFor(name);");
        for (String line : kindTests) {
            assertThat(KIND_TESTS).as(line).anyMatch(k -> k.matcher(line).find());
        }
        assertThat(KIND_TESTS).noneMatch(k -> k.matcher("dialect.configurePool(h, config, readOnly);").find());
    }
}
