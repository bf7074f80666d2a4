package io.outpost.server.support;

import io.outpost.server.OutpostApplication;
import io.outpost.testkit.TempDirs;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/** The real service on a free loopback port, for tests that talk HTTP to it. */
public final class RunningService implements AutoCloseable {
    private final ConfigurableApplicationContext ctx;
    private final int port;
    private Path tempDir;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private RunningService(ConfigurableApplicationContext ctx) {
        this.ctx = ctx;
        this.port = Integer.parseInt(ctx.getEnvironment().getProperty("local.server.port"));
    }

    /** Starts on a fresh SQLite demo database, with extra {@code --key=value} arguments. */
    public static RunningService startSqliteDemo(String... extra) throws IOException {
        Path dir = TempDirs.create("outpost-svc");
        return start(dir, "jdbc:sqlite:" + dir.resolve("demo.db"), extra);
    }

    public static RunningService start(String jdbcUrl, String... extra) {
        return start(TempDirs.create("outpost-svc"), jdbcUrl, extra);
    }

    /** Tomcat's work folder goes into {@code dir} too, so that closing the service leaves nothing behind. */
    private static RunningService start(Path dir, String jdbcUrl, String... extra) {
        List<String> args = new ArrayList<>(List.of("--server.port=0", "--outpost.database.url=" + jdbcUrl,
                "--spring.profiles.active=test", "--server.tomcat.basedir=" + dir.resolve("tomcat")));
        args.addAll(List.of(extra));
        try {
            RunningService s = new RunningService(
                    new SpringApplicationBuilder(OutpostApplication.class).run(args.toArray(String[]::new)));
            s.tempDir = dir;
            return s;
        } catch (RuntimeException e) {
            TempDirs.deleteQuietly(dir);
            throw e;
        }
    }

    public int port() {
        return port;
    }

    public String url(String path) {
        return "http://127.0.0.1:" + port + path;
    }

    public ConfigurableApplicationContext context() {
        return ctx;
    }

    public <T> T bean(Class<T> type) {
        return ctx.getBean(type);
    }

    public HttpResponse<byte[]> get(String path, String... headers) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url(path))).timeout(Duration.ofSeconds(30)).GET();
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    public String getString(String path) throws IOException, InterruptedException {
        return new String(get(path).body(), java.nio.charset.StandardCharsets.UTF_8);
    }

    /** A counter's value from /actuator/prometheus (0 when absent). */
    public double metric(String name) throws IOException, InterruptedException {
        double sum = 0;
        for (String line : getString("/actuator/prometheus").split("\n")) {
            if (line.startsWith(name + " ") || line.startsWith(name + "{")) {
                sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return sum;
    }

    /**
     * The sum of a metric's series whose labels match {@code labels} (e.g. this service's connector name): Tomcat's
     * meters come from the JVM-wide MBean server, so other services started in the same JVM show there too.
     */
    public double metric(String name, java.util.regex.Pattern labels) throws IOException, InterruptedException {
        double sum = 0;
        for (String line : getString("/actuator/prometheus").split("\n")) {
            if (line.startsWith(name + "{")
                    && labels.matcher(line.substring(0, line.lastIndexOf('}') + 1)).find()) {
                sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return sum;
    }

    @Override
    public void close() {
        try {
            ctx.close();
        } finally {
            TempDirs.deleteQuietly(tempDir);
        }
    }
}
