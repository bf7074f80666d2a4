package io.outpost.loadtest.grid;

import io.outpost.loadtest.SnapshotModel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * A job of the C++ client: its command-line tool ({@code outpost-cli}, docs/cli.md) reads one snapshot of the
 * whole tree at the job's key with the host's Frontier-style configuration (both site Squids, both origins) and
 * prints it as JSON; the rows are checked as a Java job's. The tool's output carries no per-folder generation.
 */
final class GridCppJob {
    /** Where the C++ build of {@code ./outpost test} (client-cpp/run-tests.sh) leaves the tool. */
    static final String BUILT_CLI = "client-cpp/build-tests/normal/outpost-cli";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path cli;
    private final String config;
    private final int timeoutSeconds;

    GridCppJob(Path cli, String config, int timeoutSeconds) {
        this.cli = cli;
        this.config = config;
        this.timeoutSeconds = timeoutSeconds;
    }

    /** The C++ build's tool, looked for from the working directory upwards (as the Squid script is). */
    static Optional<Path> find() {
        for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
            Path p = d.resolve(BUILT_CLI);
            if (Files.isExecutable(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    /** Per folder of the model the variant of its rows ("0", "1" or "x", see {@link GridJobs}). */
    Map<Integer, String> read(SnapshotModel m, long key) throws Exception {
        Process p = new ProcessBuilder(cli.toString(), "--config", config, "--read-timeout",
                Integer.toString(timeoutSeconds), "--format", "json", "snapshot", "HEAD", Long.toString(key))
                .redirectErrorStream(false).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(timeoutSeconds * 10L, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException("outpost-cli did not end");
        }
        if (p.exitValue() != 0) {
            throw new IllegalStateException("outpost-cli exit " + p.exitValue());
        }
        Map<String, JsonNode> byFolder = new HashMap<>();
        for (JsonNode f : JSON.readTree(new String(out, StandardCharsets.UTF_8)).path("folders")) {
            byFolder.put(f.path("folder").asString(), f.path("rows"));
        }
        Map<Integer, String> variants = new HashMap<>();
        for (int f = 0; f < m.folders(); f++) {
            JsonNode rows = byFolder.get(m.folder(f));
            variants.put(f, rows == null ? "x" : matches(m, f, rows, false) ? "0" : matches(m, f, rows, true) ? "1" : "x");
        }
        return variants;
    }

    private static boolean matches(SnapshotModel m, int f, JsonNode rows, boolean appended) {
        if (rows.size() != m.channels(f)) {
            return false;
        }
        for (int c = 0; c < rows.size(); c++) {
            List<JsonNode> r = List.of(rows.get(c).get(0), rows.get(c).get(1), rows.get(c).get(2), rows.get(c).get(3));
            if (r.get(0).asLong() != c || r.get(1).asLong() != m.since(c, SnapshotModel.IOVS - 1)
                    || r.get(2).asLong() != m.untilAtJobKey(c, appended)
                    || !m.payload(f, c, SnapshotModel.IOVS - 1).equals(r.get(3).asString())) {
                return false;
            }
        }
        return true;
    }
}
