package io.outpost.loadtest;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A real Squid on a free loopback port in front of Outpost, as a forward proxy (as Frontier clients use Squid).
 * Started with the project's squid-config/run-squid.sh when it is found (the site configuration), else with a
 * minimal configuration written under the state directory. Stopped (and waited for) by {@link #close()}.
 */
public final class SquidProcess implements AutoCloseable {
    private final Path dir;
    private final int port;
    private final Path script;
    private final Path squid;

    private SquidProcess(Path dir, int port, Path script, Path squid) {
        this.dir = dir;
        this.port = port;
        this.script = script;
        this.squid = squid;
    }

    /** The squid binary, if installed. */
    public static Optional<Path> binary() {
        List<Path> candidates = new ArrayList<>();
        for (String p : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (!p.isEmpty()) {
                candidates.add(Path.of(p, "squid"));
            }
        }
        candidates.add(Path.of("/usr/sbin/squid"));
        return candidates.stream().filter(Files::isExecutable).findFirst();
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

    public static SquidProcess start(Path dir, String outpostUrl, Optional<Path> script) throws IOException, InterruptedException {
        Path squid = binary().orElseThrow(() -> new IOException("squid is not installed (Debian: apt-get install squid)"));
        Files.createDirectories(dir);
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        SquidProcess p = new SquidProcess(dir.toAbsolutePath(), port, script.orElse(null), squid);
        if (script.isPresent()) {
            p.exec(List.of("bash", script.get().toString(), "start", "--dir", p.dir.toString(), "--port",
                    String.valueOf(port), "--outpost", outpostUrl, "--cache-mem", "256", "--cache-disk", "1000",
                    "--name", "outpost-loadtest", "--timeout", "60"), 90);
        } else {
            p.startOwn(outpostUrl);
        }
        return p;
    }

    private void startOwn(String outpostUrl) throws IOException, InterruptedException {
        boolean root = "root".equals(System.getProperty("user.name"));
        Path logs = dir.resolve("logs");
        Files.createDirectories(logs);
        String conf = String.join("\n",
                "# Minimal Squid for the load generator (squid-config/run-squid.sh was not found).",
                "http_port 127.0.0.1:" + port,
                "visible_hostname outpost-loadtest",
                root ? "cache_effective_user proxy" : "",
                "icp_port 0", "htcp_port 0",
                "acl site src 127.0.0.1/32 ::1",
                "http_access allow localhost manager", "http_access deny manager",
                "http_access allow site", "http_access deny all",
                "always_direct allow all",
                "cache_mem 256 MB", "maximum_object_size 200 MB", "maximum_object_size_in_memory 200 MB",
                "collapsed_forwarding on", "refresh_pattern . 0 0% 0",
                "access_log stdio:" + logs.resolve("access.log"), "cache_log " + logs.resolve("cache.log"),
                "cache_store_log none", "pid_filename " + dir.resolve("squid.pid"), "coredump_dir " + dir,
                "netdb_filename none", "") + "\n";
        Files.writeString(dir.resolve("squid.conf"), conf);
        if (root) {
            exec(List.of("chown", "-R", "proxy", dir.toString()), 30);
        }
        exec(List.of(squid.toString(), "-f", dir.resolve("squid.conf").toString()), 30);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!accepts()) {
            if (System.nanoTime() > deadline) {
                throw new IOException("Squid did not accept connections on port " + port + " within 60 s; see " + logs);
            }
            // Polling a process we do not own the event loop of: a short pause between connection attempts.
            TimeUnit.MILLISECONDS.sleep(100);
        }
    }

    private boolean accepts() {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 500);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private void exec(List<String> cmd, int timeoutSeconds) throws IOException, InterruptedException {
        Process pr = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(dir.resolve("control.log").toFile()).start();
        if (!pr.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            pr.destroyForcibly();
            throw new IOException(String.join(" ", cmd) + " did not finish within " + timeoutSeconds + " s");
        }
        if (pr.exitValue() != 0) {
            throw new IOException(String.join(" ", cmd) + " failed: " + Files.readString(dir.resolve("control.log")));
        }
    }

    public InetSocketAddress address() {
        return new InetSocketAddress("127.0.0.1", port);
    }

    public String describe() {
        return (script != null ? "squid-config/run-squid.sh" : "minimal own squid.conf") + ", 127.0.0.1:" + port;
    }

    @Override
    public void close() {
        try {
            if (script != null) {
                exec(List.of("bash", script.toString(), "stop", "--dir", dir.toString(), "--timeout", "60"), 90);
                return;
            }
            Path pidFile = dir.resolve("squid.pid");
            if (!Files.exists(pidFile)) {
                return;
            }
            long pid = Long.parseLong(Files.readString(pidFile).trim());
            exec(List.of(squid.toString(), "-k", "interrupt", "-f", dir.resolve("squid.conf").toString()), 30);
            Optional<ProcessHandle> h = ProcessHandle.of(pid);
            if (h.isPresent()) {
                h.get().onExit().get(60, TimeUnit.SECONDS);
            }
        } catch (Exception e) {
            System.err.println("warning: stopping Squid: " + e.getMessage());
        }
    }
}
