package io.outpost.integration;

import io.outpost.testkit.SquidProcess;
import java.nio.file.Path;

/**
 * Where the integration tests find the repository's files (set by the build as system properties) and keep their
 * state: everything they create goes under this module's target/ folder.
 */
final class Layout {
    private Layout() {
    }

    /** The repository root: squid-config/, docker/, the root pom. */
    static Path repo() {
        return Path.of(System.getProperty("outpost.repo", "../..")).toAbsolutePath().normalize();
    }

    /** This module's build folder. */
    static Path target() {
        return Path.of(System.getProperty("outpost.target", "target")).toAbsolutePath().normalize();
    }

    /** squid-config/run-squid.sh, which starts every Squid of these tests with the site configuration. */
    static Path squidScript() {
        return repo().resolve("squid-config/run-squid.sh");
    }

    /**
     * Starts a Squid named {@code name} with its state in target/squid/NAME; {@code options} are run-squid.sh
     * options such as {@code --outpost URL}.
     */
    static SquidProcess startSquid(String name, String... options) {
        return SquidProcess.start(target().resolve("squid").resolve(name), squidScript(), name, options);
    }
}
