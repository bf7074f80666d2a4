package io.outpost.integration;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ProxySelector;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real Squid started with squid-config/run-squid.sh as an ordinary background process on a loopback port, with
 * its cache, logs and pid file in its own directory under target/.
 */
public final class SquidProcess implements AutoCloseable {
    /** One access.log line in the "outpost" log format of squid.conf. */
    public record AccessLine(String result, int status, long bytes, String url, String hierarchy, String raw) {
        boolean isHit() {
            return result.contains("HIT");
        }
    }

    private final Path dir;
    private final int port;
    private boolean running = true;

    private SquidProcess(Path dir, int port) {
        this.dir = dir;
        this.port = port;
    }

    public static Path repo() {
        return Path.of(System.getProperty("outpost.repo", "../..")).toAbsolutePath().normalize();
    }

    public static Path target() {
        return Path.of(System.getProperty("outpost.target", "target")).toAbsolutePath().normalize();
    }

    public static Path script() {
        return repo().resolve("squid-config/run-squid.sh");
    }

    /** Whether the squid binary is installed (the real-Squid tests are skipped otherwise). */
    public static boolean installed() {
        if (Files.isExecutable(Path.of("/usr/sbin/squid"))) {
            return true;
        }
        for (String p : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (!p.isEmpty() && Files.isExecutable(Path.of(p, "squid"))) {
                return true;
            }
        }
        return false;
    }

    public static final String NOT_INSTALLED = "squid is not installed (Debian: apt-get install squid; ./outpost test "
            + "installs it): skipping the tests against a real Squid";

    /**
     * Starts Squid named {@code name} (its directory is target/squid/NAME, emptied first) on a free loopback port;
     * {@code options} are run-squid.sh options such as {@code --outpost URL}, {@code --origin HOST:PORT}.
     */
    public static SquidProcess start(String name, String... options) {
        Path dir = target().resolve("squid").resolve(name);
        deleteTree(dir);
        int port = OutpostServer.freePort();
        List<String> cmd = new ArrayList<>(List.of("bash", script().toString(), "start", "--dir", dir.toString(),
                "--port", Integer.toString(port), "--name", name, "--cache-mem", "64", "--cache-disk", "2000",
                "--timeout", "30"));
        cmd.addAll(List.of(options));
        run(cmd, dir.resolveSibling(name + "-start.out"), 60);
        return new SquidProcess(dir, port);
    }

    public int port() {
        return port;
    }

    public Path dir() {
        return dir;
    }

    /** A client that sends every request through this Squid, as a Frontier-style client with a proxyurl does. */
    public HttpClient client() {
        return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5))
                .proxy(ProxySelector.of(new InetSocketAddress("127.0.0.1", port))).build();
    }

    public List<AccessLine> accessLog() {
        Path log = dir.resolve("logs/access.log");
        try {
            if (!Files.exists(log)) {
                return List.of();
            }
            List<AccessLine> lines = new ArrayList<>();
            for (String raw : Files.readAllLines(log)) {
                String[] f = raw.trim().split("\\s+");
                if (f.length < 9 || !f[3].contains("/")) {
                    continue;
                }
                String[] rs = f[3].split("/");
                lines.add(new AccessLine(rs[0], Integer.parseInt(rs[1]), Long.parseLong(f[4]), f[6], f[7], raw));
            }
            return lines;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public List<AccessLine> accessLog(String url) {
        return accessLog().stream().filter(l -> l.url().equals(url)).toList();
    }

    @Override
    public void close() {
        if (running) {
            running = false;
            run(List.of("bash", script().toString(), "stop", "--dir", dir.toString(), "--timeout", "30"),
                    dir.resolveSibling(dir.getFileName() + "-stop.out"), 60);
        }
    }

    private static void run(List<String> cmd, Path out, int timeoutSeconds) {
        try {
            Files.createDirectories(out.getParent());
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException(String.join(" ", cmd) + " did not finish in " + timeoutSeconds + " s");
            }
            if (p.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", cmd) + " failed (" + p.exitValue() + "):\n"
                        + Files.readString(out));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static void deleteTree(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
