package io.outpost.integration;

import io.outpost.server.OutpostApplication;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

/** The real service, started in this JVM on a loopback port, with a {@link RequestLog} in front. */
public final class OutpostServer implements AutoCloseable {
    private final ConfigurableApplicationContext ctx;
    private final int port;

    private OutpostServer(ConfigurableApplicationContext ctx) {
        this.ctx = ctx;
        this.port = Integer.parseInt(ctx.getEnvironment().getProperty("local.server.port"));
    }

    /** Starts Outpost on the SQLite file {@code db} (no demo data) on {@code port} (0 = any free port). */
    public static OutpostServer start(Path db, int port, String... extraArgs) {
        // Tomcat's work folder next to the database under target/, not in the system temporary directory
        return start("jdbc:sqlite:" + db.toAbsolutePath(), Path.of(db.toAbsolutePath() + ".tomcat"), port, extraArgs);
    }

    /** Starts Outpost on the database at {@code jdbcUrl}, with Tomcat's work folder in {@code tomcatDir}. */
    public static OutpostServer start(String jdbcUrl, Path tomcatDir, int port, String... extraArgs) {
        List<String> args = new ArrayList<>(List.of("--server.port=" + port, "--server.address=127.0.0.1",
                "--outpost.database.url=" + jdbcUrl, "--outpost.demo-data=false",
                "--outpost.poll-interval=1s", "--spring.jmx.enabled=false",
                "--server.tomcat.basedir=" + tomcatDir.toAbsolutePath()));
        args.addAll(List.of(extraArgs));
        SpringApplication app = new SpringApplication(OutpostApplication.class, RequestLog.Config.class);
        return new OutpostServer(app.run(args.toArray(String[]::new)));
    }

    public int port() {
        return port;
    }

    /** The server URL clients use, e.g. http://127.0.0.1:PORT. */
    public String baseUrl() {
        return "http://127.0.0.1:" + port;
    }

    public RequestLog requests() {
        return ctx.getBean(RequestLog.class);
    }

    public boolean isRunning() {
        return ctx.isActive();
    }

    @Override
    public void close() {
        ctx.close();
    }

    /** A free loopback port (for a server that must be started on a known port). */
    public static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
