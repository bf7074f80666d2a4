package io.outpost.testkit;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ProxySelector;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A real Squid as an ordinary background process on a free loopback port, with its configuration, cache, logs and
 * pid file in one state folder. Started either with the project's squid-config/run-squid.sh (the site
 * configuration; {@link #start}) or, where that script is not at hand (the load generator run from its jar), with
 * a minimal forward-proxy configuration of its own ({@link #startStandalone}). Started by root, Squid runs as the
 * unprivileged user {@code proxy}. {@link #close()} stops it and waits until it has exited.
 */
public final class SquidProcess implements AutoCloseable {
    public static final String NOT_INSTALLED = "squid is not installed (Debian: apt-get install squid; ./outpost test "
            + "installs it): skipping the tests against a real Squid";
    private static final String SQUID_USER = "proxy";

    /** One access.log line in the "outpost" log format of squid-config/squid.conf. */
    public record AccessLine(String result, int status, long bytes, String url, String hierarchy, String raw) {
        public boolean isHit() {
            return result.contains("HIT");
        }
    }

    private final Path dir;
    private final int port;
    /** run-squid.sh, or null when started with a configuration of its own. */
    private final Path script;
    private boolean running = true;

    private SquidProcess(Path dir, int port, Path script) {
        this.dir = dir;
        this.port = port;
        this.script = script;
    }

    /** The squid binary, if installed. */
    public static Optional<Path> binary() {
        List<Path> candidates = new ArrayList<>();
        for (String p : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (!p.isEmpty()) {
                candidates.add(Path.of(p, "squid"));
            }
        }
        candidates.add(Path.of("/usr/sbin/squid"));
        return candidates.stream().filter(Files::isExecutable).findFirst();
    }

    /** Whether the squid binary is installed (tests against a real Squid are skipped otherwise). */
    public static boolean installed() {
        return binary().isPresent();
    }

    /** squid-config/run-squid.sh of the source tree, looked for from the working directory upwards. */
    public static Optional<Path> findScript() {
        for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
            Path s = d.resolve("squid-config/run-squid.sh");
            if (Files.isRegularFile(s)) {
                return Optional.of(s);
            }
        }
        return Optional.empty();
    }

    /**
     * Starts Squid with {@code script} (squid-config/run-squid.sh) in the state folder {@code dir}, emptied first,
     * named {@code name} (visible_hostname), on a free loopback port. {@code options} are further run-squid.sh
     * options such as {@code --outpost URL}, {@code --origin HOST:PORT} or {@code --cache-mem MB} (later ones win
     * over the small defaults given here).
     */
    public static SquidProcess start(Path dir, Path script, String name, String... options) {
        dir = dir.toAbsolutePath();
        TempDirs.deleteQuietly(dir);
        int port = freePort();
        List<String> cmd = new ArrayList<>(List.of("bash", script.toString(), "start", "--dir", dir.toString(),
                "--port", Integer.toString(port), "--name", name, "--user", SQUID_USER, "--cache-mem", "64",
                "--cache-disk", "2000", "--timeout", "30"));
        cmd.addAll(List.of(options));
        run(cmd, dir.resolveSibling(dir.getFileName() + "-start.out"), 90);
        return new SquidProcess(dir, port, script.toAbsolutePath());
    }

    /**
     * Starts Squid in {@code dir} (emptied first) with a minimal configuration of its own: a forward proxy for
     * loopback clients that caches in memory and goes straight to the origin named in the request.
     */
    public static SquidProcess startStandalone(Path dir, String name, int cacheMemMb) {
        Path squid = binary().orElseThrow(() -> new IllegalStateException(NOT_INSTALLED));
        dir = dir.toAbsolutePath();
        TempDirs.deleteQuietly(dir);
        boolean root = "root".equals(System.getProperty("user.name"));
        int port = freePort();
        Path logs = dir.resolve("logs");
        try {
            Files.createDirectories(logs);
            String conf = String.join("\n",
                    "# Minimal Squid (squid-config/run-squid.sh was not found).",
                    "http_port 127.0.0.1:" + port,
                    "visible_hostname " + name,
                    root ? "cache_effective_user " + SQUID_USER : "",
                    "icp_port 0", "htcp_port 0",
                    "acl site src 127.0.0.1/32 ::1",
                    "http_access allow localhost manager", "http_access deny manager",
                    "http_access allow site", "http_access deny all",
                    "always_direct allow all",
                    "cache_mem " + cacheMemMb + " MB", "maximum_object_size 200 MB",
                    "maximum_object_size_in_memory 200 MB",
                    "collapsed_forwarding on", "refresh_pattern . 0 0% 0",
                    "access_log stdio:" + logs.resolve("access.log"), "cache_log " + logs.resolve("cache.log"),
                    "cache_store_log none", "pid_filename " + dir.resolve("squid.pid"), "coredump_dir " + dir,
                    "netdb_filename none", "");
            Files.writeString(dir.resolve("squid.conf"), conf);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Path out = dir.resolve("control.log");
        if (root) {
            run(List.of("chown", "-R", SQUID_USER, dir.toString()), out, 30);
        }
        run(List.of(squid.toString(), "-f", dir.resolve("squid.conf").toString()), out, 30);
        SquidProcess p = new SquidProcess(dir, port, null);
        try {
            p.awaitAccepting(Duration.ofSeconds(60));
        } catch (RuntimeException e) {
            p.close();
            throw e;
        }
        return p;
    }

    private void awaitAccepting(Duration limit) {
        long deadline = System.nanoTime() + limit.toNanos();
        while (!accepts()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("Squid did not accept connections on port " + port + " within "
                        + limit.toSeconds() + " s; see " + dir.resolve("logs"));
            }
            try {
                // Polling a process we do not own the event loop of: a short pause between connection attempts.
                TimeUnit.MILLISECONDS.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    private boolean accepts() {
        try (Socket s = new Socket()) {
            s.connect(address(), 500);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The Squid daemon's process id, from its pid file (the processes it forks are its descendants). */
    public long pid() {
        try {
            return Long.parseLong(Files.readString(dir.resolve("squid.pid")).trim());
        } catch (IOException | NumberFormatException e) {
            throw new IllegalStateException("no pid in " + dir.resolve("squid.pid") + ": " + e.getMessage(), e);
        }
    }

    public int port() {
        return port;
    }

    public Path dir() {
        return dir;
    }

    public InetSocketAddress address() {
        return new InetSocketAddress("127.0.0.1", port);
    }

    /** How it was started and where it listens, for reports. */
    public String describe() {
        return (script != null ? "squid-config/run-squid.sh" : "minimal own squid.conf") + ", 127.0.0.1:" + port;
    }

    /** A client that sends every request through this Squid, as a Frontier-style client with a proxyurl does. */
    public HttpClient client() {
        return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5))
                .proxy(ProxySelector.of(address())).build();
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

    /**
     * The lines of {@code url} once there are at least {@code count}, or whatever is there after {@code timeout}:
     * Squid writes a line when it has finished a transaction, which can be after its client has read the answer.
     */
    public List<AccessLine> awaitAccessLog(String url, int count, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<AccessLine> lines;
        while ((lines = accessLog(url)).size() < count && System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(20_000_000L);
        }
        return lines;
    }

    /** Stops Squid and waits until it has exited; the state folder stays for inspection. */
    @Override
    public void close() {
        if (!running) {
            return;
        }
        running = false;
        if (script != null) {
            run(List.of("bash", script.toString(), "stop", "--dir", dir.toString(), "--timeout", "60"),
                    dir.resolveSibling(dir.getFileName() + "-stop.out"), 90);
            return;
        }
        Path pidFile = dir.resolve("squid.pid");
        try {
            if (!Files.exists(pidFile)) {
                return;
            }
            long pid = Long.parseLong(Files.readString(pidFile).trim());
            Path squid = binary().orElseThrow(() -> new IllegalStateException(NOT_INSTALLED));
            run(List.of(squid.toString(), "-k", "interrupt", "-f", dir.resolve("squid.conf").toString()),
                    dir.resolve("control.log"), 30);
            Optional<ProcessHandle> h = ProcessHandle.of(pid);
            if (h.isPresent()) {
                h.get().onExit().get(60, TimeUnit.SECONDS);
            }
        } catch (Exception e) {
            throw new IllegalStateException("stopping Squid in " + dir + ": " + e.getMessage(), e);
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
}
