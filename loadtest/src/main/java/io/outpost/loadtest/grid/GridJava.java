package io.outpost.loadtest.grid;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarFile;

/**
 * The command line of a child JVM running one of the load generator's own sub-commands (the grid's driver, origins
 * and job hosts), on this JVM's Java and class path: {@code java -jar} for the packaged jar, the main class on the
 * class path otherwise (tests, IDEs).
 */
final class GridJava {
    private GridJava() {
    }

    /** {@code tmp}: the child's own temporary folder (made here), so that a killed child leaves nothing elsewhere. */
    static List<String> command(String maxHeap, Path tmp, List<String> args) {
        try {
            Files.createDirectories(tmp);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        String java = ProcessHandle.current().info().command().orElse("java");
        String cp = System.getProperty("java.class.path");
        List<String> cmd = new ArrayList<>(List.of(java, "-Xmx" + maxHeap, "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-Djava.io.tmpdir=" + tmp.toAbsolutePath()));
        if (isBootJar(cp)) {
            cmd.addAll(List.of("-jar", cp));
        } else {
            cmd.addAll(List.of("-cp", cp, "io.outpost.loadtest.LoadTestCli"));
        }
        cmd.addAll(args);
        return cmd;
    }

    private static boolean isBootJar(String cp) {
        if (cp.contains(File.pathSeparator) || !cp.endsWith(".jar") || !Files.isRegularFile(Path.of(cp))) {
            return false;
        }
        try (JarFile jar = new JarFile(cp)) {
            return jar.getEntry("BOOT-INF/") != null;
        } catch (IOException e) {
            return false;
        }
    }
}
