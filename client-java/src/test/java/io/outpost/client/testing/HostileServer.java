package io.outpost.client.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The shared hostile-server fixture (testdata/hostile/hostile_server.py) run as a child process for one case; it
 * listens on a free loopback port and ends when {@link #close()} closes its standard input (or kills it).
 */
public final class HostileServer implements AutoCloseable {
    public static final Path TESTDATA = Path.of(System.getProperty("outpost.testdata", "../testdata"));
    private static final Path SCRIPT = TESTDATA.resolve("hostile").resolve("hostile_server.py");

    private final Process process;
    private final int port;

    private HostileServer(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    /** True when python3 can be started (the fixture needs nothing else). */
    public static boolean pythonAvailable() {
        try {
            Process p = new ProcessBuilder("python3", "--version").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    /** Starts case {@code name}; {@code upstream} (or null) is the server a man-in-the-middle case relays to. */
    public static HostileServer start(String name, String upstream) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("python3", SCRIPT.toString(), "--case", name, "--port", "0"));
        if (upstream != null) {
            cmd.addAll(List.of("--upstream", upstream));
        }
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.US_ASCII));
        String first;
        try {
            first = CompletableFuture.supplyAsync(() -> {
                try {
                    return out.readLine();
                } catch (IOException e) {
                    return null;
                }
            }).get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            p.destroyForcibly();
            throw new IllegalStateException("the hostile server (" + name + ") did not say its port within 30 s", e);
        }
        if (first == null || !first.startsWith("PORT ")) {
            p.destroyForcibly();
            throw new IllegalStateException("the hostile server (" + name + ") printed '" + first + "', not PORT N");
        }
        return new HostileServer(p, Integer.parseInt(first.substring(5).strip()));
    }

    public String url() {
        return "http://127.0.0.1:" + port;
    }

    @Override
    public void close() throws IOException {
        process.getOutputStream().close();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
