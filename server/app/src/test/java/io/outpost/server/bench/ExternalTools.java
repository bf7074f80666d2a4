package io.outpost.server.bench;

import io.outpost.testkit.TempDirs;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** nginx and wrk, the Debian packages, driven as the benchmarks' reference server and load tool. */
final class ExternalTools {
    private ExternalTools() {
    }

    static boolean available(String tool) {
        for (String dir : new String[] {"/usr/sbin", "/usr/bin", "/usr/local/bin", "/usr/local/sbin"}) {
            if (Files.isExecutable(Path.of(dir, tool))) {
                return true;
            }
        }
        return false;
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** A running nginx serving {@code root} on a loopback port. */
    static final class Nginx implements AutoCloseable {
        final int port;
        private final Path prefix;
        private Process process;

        Nginx(Path root) throws IOException, InterruptedException {
            this(root, false);
        }

        /** With {@code accessLog}, one line per request in nginx's combined format to a file, as a site logs. */
        Nginx(Path root, boolean accessLog) throws IOException, InterruptedException {
            port = freePort();
            prefix = TempDirs.create("outpost-nginx");
            try {
                start(root, accessLog);
            } catch (IOException | InterruptedException | RuntimeException e) {
                close();
                throw e;
            }
        }

        private void start(Path root, boolean accessLog) throws IOException, InterruptedException {
            Files.createDirectories(prefix.resolve("logs"));
            Path conf = prefix.resolve("nginx.conf");
            Files.writeString(conf, "daemon off;\nworker_processes 2;\npid " + prefix.resolve("nginx.pid") + ";\n"
                    + "error_log " + prefix.resolve("logs/error.log") + ";\nevents { worker_connections 1024; }\n"
                    + "http {\n access_log " + (accessLog ? prefix.resolve("logs/access.log") + " combined" : "off")
                    + ";\n sendfile on;\n tcp_nopush on;\n keepalive_requests 1000000;\n"
                    + " client_body_temp_path " + prefix + "/body;\n proxy_temp_path " + prefix + "/proxy;\n"
                    + " fastcgi_temp_path " + prefix + "/fcgi;\n uwsgi_temp_path " + prefix + "/uwsgi;\n scgi_temp_path " + prefix + "/scgi;\n"
                    + " server {\n  listen 127.0.0.1:" + port + ";\n  root " + root + ";\n }\n}\n");
            new ProcessBuilder("chmod", "-R", "a+rX", root.toString()).start().waitFor();
            process = new ProcessBuilder("nginx", "-c", conf.toString(), "-p", prefix.toString())
                    .redirectErrorStream(true).redirectOutput(prefix.resolve("logs/stdout").toFile()).start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (System.nanoTime() < deadline) {
                try (java.net.Socket s = new java.net.Socket("127.0.0.1", port)) {
                    return;
                } catch (IOException notYet) {
                    if (!process.isAlive()) {
                        throw new IOException("nginx exited: " + Files.readString(prefix.resolve("logs/stdout")));
                    }
                    Thread.onSpinWait();
                }
            }
            throw new IOException("nginx did not listen on " + port + " within 10 s");
        }

        /** CPU time of nginx's master and worker processes so far. */
        long cpuNanos() {
            long sum = cpu(process.toHandle());
            for (ProcessHandle h : process.toHandle().descendants().toList()) {
                sum += cpu(h);
            }
            return sum;
        }

        private static long cpu(ProcessHandle h) {
            return h.info().totalCpuDuration().map(java.time.Duration::toNanos).orElse(0L);
        }

        @Override
        public void close() {
            if (process != null) {
                process.destroy();
                try {
                    if (!process.waitFor(10, TimeUnit.SECONDS)) {
                        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            TempDirs.deleteQuietly(prefix);
        }
    }

    /**
     * What every response of a wrk run must be: status 200 with a body of {@code minBody} to {@code maxBody} bytes
     * (equal for one URL; a range where a script asks distinct URLs whose answers differ in a few bytes).
     */
    record Expected(long minBody, long maxBody) {
        /** Status line and headers a response may add to its body, for the bytes-per-response check of timed runs. */
        static final long HEAD_MAX = 1024;

        static Expected body(long bytes) {
            return new Expected(bytes, bytes);
        }
    }

    /** Runs wrk with at most two threads, checks what it read (see below) and returns requests per second. */
    static double wrk(String url, int connections, int seconds, Path luaScript, Expected expected)
            throws IOException, InterruptedException {
        return wrk(url, Math.min(2, connections), connections, seconds, luaScript, expected);
    }

    /**
     * Runs wrk with {@code threads} threads (at most {@code connections}) and returns requests per second, after
     * checking that the run saw no error: no response with a status of 400 or more, no socket error (connect, read,
     * write, time-out), and on average as many bytes per response as {@code expected} bodies plus their headers,
     * so that short answers (refusals, redirects) cannot pass for answers. Any error fails the benchmark. wrk
     * cannot check each timed response without slowing every request down; {@link #verify} does that once.
     */
    static double wrk(String url, int threads, int connections, int seconds, Path luaScript, Expected expected)
            throws IOException, InterruptedException {
        String out = run(url, threads, connections, seconds, luaScript);
        Matcher m = Pattern.compile("Requests/sec:\\s+([0-9.]+)").matcher(out);
        Matcher read = Pattern.compile("(\\d+) requests in [0-9.]+\\w+, ([0-9.]+)([KMGT]?B) read").matcher(out);
        if (!m.find() || !read.find()) {
            throw new IOException("wrk printed no rate: " + out);
        }
        Matcher errors = Pattern.compile("Non-2xx or 3xx responses: (\\d+)").matcher(out);
        if (errors.find()) {
            throw new IOException("wrk saw " + errors.group(1) + " error responses: " + out);
        }
        Matcher socket = Pattern.compile("Socket errors: connect (\\d+), read (\\d+), write (\\d+), timeout (\\d+)")
                .matcher(out);
        if (socket.find()) {
            throw new IOException("wrk saw socket errors: " + socket.group() + ": " + out);
        }
        long requests = Long.parseLong(read.group(1));
        if (requests == 0) {
            throw new IOException("wrk completed no request: " + out);
        }
        double perResponse = Double.parseDouble(read.group(2)) * unit(read.group(3)) / requests;
        // wrk prints the bytes read with two decimals of a binary unit (within 0.5 %), and counts the bytes of the
        // responses still arriving when the run stops (at most one per connection) but not their requests
        double most = (expected.maxBody() + Expected.HEAD_MAX) * (requests + connections) / (double) requests;
        if (perResponse < expected.minBody() * 0.995 || perResponse > most * 1.005) {
            throw new IOException(String.format("wrk read %.0f bytes per response, expected a body of %d-%d bytes and "
                    + "its headers: %s", perResponse, expected.minBody(), expected.maxBody(), out));
        }
        return Double.parseDouble(m.group(1));
    }

    /**
     * Checks every response of a short untimed wrk run (the same URL, or the URLs {@code luaScript} asks): status 200
     * and a body length as expected, counted by a Lua response hook (which would slow the timed runs). Fails the
     * benchmark on the first run with a wrong response.
     */
    static void verify(String url, int connections, Path luaScript, Expected expected)
            throws IOException, InterruptedException {
        Path script = Files.createTempFile("wrk-check", ".lua");
        try {
            String requests = luaScript == null ? "" : Files.readString(luaScript) + "\n";
            Files.writeString(script, requests + checkingScript(expected));
            String out = run(url, Math.min(2, connections), connections, 1, script);
            Matcher m = Pattern.compile("CHECKED (\\d+) BAD (\\d+)").matcher(out);
            if (!m.find() || Long.parseLong(m.group(1)) == 0 || Long.parseLong(m.group(2)) != 0) {
                throw new IOException("responses not as expected (status 200, body " + expected.minBody() + "-"
                        + expected.maxBody() + " bytes): " + out);
            }
        } finally {
            Files.deleteIfExists(script);
        }
    }

    /** Lua counting responses that are not 200 or whose body length is out of range, printed by done(). */
    private static String checkingScript(Expected expected) {
        return "local checked_setup = setup\n"
                + "local checked_threads = {}\n"
                + "function setup(thread)\n"
                + "  table.insert(checked_threads, thread)\n"
                + "  if checked_setup then checked_setup(thread) end\n"
                + "end\n"
                + "seen = 0\nbad = 0\n"
                + "function response(status, headers, body)\n"
                + "  seen = seen + 1\n"
                + "  if status ~= 200 or #body < " + expected.minBody() + " or #body > " + expected.maxBody()
                + " then bad = bad + 1 end\n"
                + "end\n"
                + "function done(summary, latency, requests)\n"
                + "  local s, b = 0, 0\n"
                + "  for _, t in ipairs(checked_threads) do s = s + t:get('seen'); b = b + t:get('bad') end\n"
                + "  io.write(string.format('CHECKED %d BAD %d\\n', s, b))\n"
                + "end\n";
    }

    private static String run(String url, int threads, int connections, int seconds, Path luaScript)
            throws IOException, InterruptedException {
        // a slow answer on a busy machine is slow, not lost: wrk's 2 s default would count it as a socket time-out
        List<String> cmd = new ArrayList<>(List.of("wrk", "-t" + threads, "-c" + connections, "-d" + seconds + "s",
                "--timeout", "60s", "--latency"));
        if (luaScript != null) {
            cmd.addAll(List.of("-s", luaScript.toString()));
        }
        cmd.add(url);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(seconds + 30L, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("wrk did not end: " + out);
        }
        return out;
    }

    private static double unit(String u) {
        return switch (u) {
            case "B" -> 1;
            case "KB" -> 1024;
            case "MB" -> 1024.0 * 1024;
            case "GB" -> 1024.0 * 1024 * 1024;
            default -> 1024.0 * 1024 * 1024 * 1024;
        };
    }
}
