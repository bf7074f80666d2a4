package io.outpost.server.bench;

import io.outpost.store.testing.TempDirs;
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
            port = freePort();
            prefix = TempDirs.create("outpost-nginx");
            try {
                start(root);
            } catch (IOException | InterruptedException | RuntimeException e) {
                close();
                throw e;
            }
        }

        private void start(Path root) throws IOException, InterruptedException {
            Files.createDirectories(prefix.resolve("logs"));
            Path conf = prefix.resolve("nginx.conf");
            Files.writeString(conf, "daemon off;\nworker_processes 2;\npid " + prefix.resolve("nginx.pid") + ";\n"
                    + "error_log " + prefix.resolve("logs/error.log") + ";\nevents { worker_connections 1024; }\n"
                    + "http {\n access_log off;\n sendfile on;\n tcp_nopush on;\n keepalive_requests 1000000;\n"
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

    /** Runs wrk and returns requests per second. */
    static double wrk(String url, int connections, int seconds, Path luaScript) throws IOException, InterruptedException {
        return wrk(url, Math.min(2, connections), connections, seconds, luaScript);
    }

    /** Runs wrk with {@code threads} threads (at most {@code connections}) and returns requests per second. */
    static double wrk(String url, int threads, int connections, int seconds, Path luaScript)
            throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("wrk", "-t" + threads, "-c" + connections, "-d" + seconds + "s",
                "--latency"));
        if (luaScript != null) {
            cmd.addAll(List.of("-s", luaScript.toString()));
        }
        cmd.add(url);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        p.waitFor(seconds + 30L, TimeUnit.SECONDS);
        Matcher m = Pattern.compile("Requests/sec:\\s+([0-9.]+)").matcher(out);
        if (!m.find()) {
            throw new IOException("wrk printed no rate: " + out);
        }
        Matcher errors = Pattern.compile("Non-2xx or 3xx responses: (\\d+)").matcher(out);
        if (errors.find()) {
            throw new IOException("wrk saw " + errors.group(1) + " error responses: " + out);
        }
        return Double.parseDouble(m.group(1));
    }

    /**
     * wrk with every response checked: status 200 and exactly the bytes of {@code expectedBody} (wrk's Lua compares
     * each whole body). Returns requests per second; throws if any response differed or none was checked.
     */
    static double checkedWrk(String url, int threads, int connections, int seconds, Path expectedBody)
            throws IOException, InterruptedException {
        Path lua = Files.createTempFile("checked", ".lua");
        try {
            Files.writeString(lua, "local f = io.open('" + expectedBody + "', 'rb')\nexpected = f:read('*a')\nf:close()\n"
                    + "good = 0\nbad = 0\nlocal threads = {}\n"
                    + "function setup(thread) table.insert(threads, thread) end\n"
                    + "function response(status, headers, body)\n"
                    + "  if status == 200 and body == expected then good = good + 1 else bad = bad + 1 end\nend\n"
                    + "function done(summary, latency, requests)\n  local g, b = 0, 0\n"
                    + "  for _, t in ipairs(threads) do g = g + t:get('good'); b = b + t:get('bad') end\n"
                    + "  io.write(string.format('CHECKED good=%d bad=%d of=%d\\n', g, b, summary.requests))\nend\n");
            List<String> cmd = List.of("wrk", "-t" + threads, "-c" + connections, "-d" + seconds + "s", "-s",
                    lua.toString(), url);
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes());
            p.waitFor(seconds + 30L, TimeUnit.SECONDS);
            Matcher rate = Pattern.compile("Requests/sec:\\s+([0-9.]+)").matcher(out);
            Matcher checked = Pattern.compile("CHECKED good=(\\d+) bad=(\\d+) of=(\\d+)").matcher(out);
            if (!rate.find() || !checked.find()) {
                throw new IOException("wrk printed no rate or no check: " + out);
            }
            long good = Long.parseLong(checked.group(1));
            long bad = Long.parseLong(checked.group(2));
            if (bad > 0 || good == 0 || good != Long.parseLong(checked.group(3)) || out.contains("Socket errors")) {
                throw new IOException("wrk saw wrong or failed answers from " + url + ": " + out);
            }
            return Double.parseDouble(rate.group(1));
        } finally {
            Files.deleteIfExists(lua);
        }
    }
}
