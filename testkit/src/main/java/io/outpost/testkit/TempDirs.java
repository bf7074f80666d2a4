package io.outpost.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * Temporary folders of tests that are removed again: when their owner closes them, and in any case when the JVM
 * exits (also after a failed test), so a test run leaves nothing in the system temporary directory.
 */
public final class TempDirs {
    private static final List<Path> CREATED = new ArrayList<>();
    private static boolean hooked;

    private TempDirs() {
    }

    /** A new folder under java.io.tmpdir, deleted with its contents at the latest when the JVM exits. */
    public static synchronized Path create(String prefix) {
        try {
            Path dir = Files.createTempDirectory(prefix);
            CREATED.add(dir);
            if (!hooked) {
                hooked = true;
                Runtime.getRuntime().addShutdownHook(new Thread(TempDirs::deleteAll, "test-temp-cleanup"));
            }
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static synchronized void deleteAll() {
        for (Path p : CREATED) {
            deleteQuietly(p);
        }
        CREATED.clear();
    }

    /** Deletes a folder and everything in it; a missing folder is fine. */
    public static void delete(Path dir) throws IOException {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    /** As {@link #delete}, for cleanup paths that must not hide the test's own failure. */
    public static void deleteQuietly(Path dir) {
        try {
            delete(dir);
        } catch (IOException | RuntimeException e) {
            System.err.println("could not delete test folder " + dir + ": " + e);
        }
    }
}
