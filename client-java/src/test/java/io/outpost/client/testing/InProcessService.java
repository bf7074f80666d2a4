package io.outpost.client.testing;

import io.outpost.server.OutpostApplication;
import io.outpost.testkit.TempDirs;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The real Outpost service, started in this JVM on a free loopback port, with its database (unless one is given)
 * and Tomcat's work folder in a folder of its own that {@link #close()} removes ({@link TempDirs} again at JVM
 * exit, in case Tomcat recreates it while closing). Tests that need a live service use this, so none leaves files behind.
 */
public final class InProcessService implements AutoCloseable {
    private final Path dir;
    private final ConfigurableApplicationContext context;

    private InProcessService(Path dir, ConfigurableApplicationContext context) {
        this.dir = dir;
        this.context = context;
    }

    /** A service on {@code jdbcUrl}, or on a fresh demo database when it is null; {@code extra} are more settings. */
    public static InProcessService start(String jdbcUrl, String... extra) throws IOException {
        Path dir = TempDirs.create("outpost-client-svc");
        List<String> args = new ArrayList<>(List.of("--server.port=0", "--server.address=127.0.0.1",
                "--outpost.database.url=" + (jdbcUrl != null ? jdbcUrl : "jdbc:sqlite:" + dir.resolve("demo.db")),
                "--server.tomcat.basedir=" + dir.resolve("tomcat"), "--logging.level.root=warn",
                "--logging.level.outpost.access=warn"));
        args.addAll(List.of(extra));
        try {
            return new InProcessService(dir, new SpringApplicationBuilder(OutpostApplication.class)
                    .run(args.toArray(String[]::new)));
        } catch (RuntimeException e) {
            deleteQuietly(dir);
            throw e;
        }
    }

    public String url() {
        return "http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port");
    }

    public ConfigurableApplicationContext context() {
        return context;
    }

    public Path dir() {
        return dir;
    }

    @Override
    public void close() {
        try {
            context.close();
        } finally {
            deleteQuietly(dir);
        }
    }

    private static void deleteQuietly(Path root) {
        try {
            TempDirs.delete(root);
        } catch (IOException e) {
            // being recreated while the context closes: TempDirs deletes it again at JVM exit
        }
    }
}
