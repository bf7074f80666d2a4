package io.outpost.loadtest;

import io.outpost.server.OutpostApplication;
import io.outpost.store.IovStore;
import io.outpost.store.StoreException;
import io.outpost.store.db.DatabaseConfig;
import io.outpost.store.workload.Workload;
import io.outpost.store.workload.WorkloadGenerator;
import io.outpost.testkit.PostgresServer;
import io.outpost.testkit.SquidProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.boot.Banner;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * What a run needs on this machine: the database (a fresh SQLite file, a PostgreSQL started for the run, or a
 * given loopback JDBC URL), the Outpost service (in-process unless a loopback URL is given) and, for the cached
 * mode, a Squid. Everything started here is stopped by {@link #close()}.
 */
public final class Environment implements AutoCloseable {
    /** How to set the environment up. {@code db}: sqlite or postgres (ignored when dbUrl is set). */
    /** {@code splitCores}: give a PostgreSQL started for the run its own CPUs ({@link CoreSplit}). */
    public record Options(String db, String dbUrl, String dbUser, String dbPassword, String outpostUrl, Path workDir,
                          int readPool, boolean progress, boolean splitCores) {
    }

    private final Options options;
    private final String jdbcUrl;
    private final String user;
    private final String password;
    private final IovStore store;
    private final Map<String, String> description = new LinkedHashMap<>();
    /** Proxied mode's distinct keys, shared by all targets; random start against a running service that may have seen some. */
    private final AtomicLong distinctKeys = new AtomicLong();
    private ConfigurableApplicationContext service;
    private String outpostUrl;
    private ServiceMetrics metrics;
    private SquidProcess squid;
    /** The CPUs split between the servers and the generator, if they are. */
    private Optional<CoreSplit.Split> split = Optional.empty();

    private Environment(Options o, String jdbcUrl, String user, String password) {
        this.options = o;
        if (o.outpostUrl() != null) {
            distinctKeys.set(ThreadLocalRandom.current().nextLong(1L << 40));
        }
        this.jdbcUrl = Loopback.requireJdbc(jdbcUrl);
        this.user = user;
        this.password = password;
        this.store = IovStore.open(DatabaseConfig.of(jdbcUrl, user, password).withPools(Math.max(2, o.readPool()), 2));
    }

    public static Environment open(Options o) throws IOException {
        Files.createDirectories(o.workDir());
        if (o.outpostUrl() != null) {
            Loopback.requireHttp(o.outpostUrl());
        }
        Environment env;
        if (o.dbUrl() != null) {
            env = new Environment(o, o.dbUrl(), o.dbUser(), o.dbPassword());
            env.description.put("database", "given: " + DatabaseConfig.of(o.dbUrl()).maskedUrl());
        } else if ("postgres".equalsIgnoreCase(o.db())) {
            String url = PostgresServer.shared().createDatabase("loadtest");
            env = new Environment(o, url, "postgres", "");
            env.description.put("database", "PostgreSQL (embedded binaries, started for this run) " + url);
            env.split = o.splitCores() ? CoreSplit.apply(PostgresServer.shared().pid()) : Optional.empty();
            env.description.put("cpu split", env.split.map(CoreSplit.Split::describe).orElse("shared by the database, "
                    + "the generator, the service and Squid (" + (o.splitCores() ? "fewer than 2 CPUs or no taskset"
                    : "split disabled") + ")"));
        } else if ("sqlite".equalsIgnoreCase(o.db())) {
            Path file = o.workDir().resolve("loadtest.db").toAbsolutePath();
            for (String suffix : List.of("", "-wal", "-shm")) {
                Files.deleteIfExists(Path.of(file + suffix));
            }
            env = new Environment(o, "jdbc:sqlite:" + file, null, null);
            env.description.put("database", "SQLite " + file);
        } else {
            throw new IllegalArgumentException("--db must be sqlite or postgres, not " + o.db());
        }
        return env;
    }

    public IovStore store() {
        return store;
    }

    public Map<String, String> description() {
        return description;
    }

    /** Creates and fills the workload's folders at {@code scale} unless they are already there. */
    public void populate(Workload w, double scale) {
        try {
            var f = store.folder(w.folderPath(w.folders(scale) - 1));
            if (store.channels(f).size() != w.channels(scale)) {
                throw new IllegalStateException(w.label() + " is already in the database at another scale ("
                        + store.channels(f).size() + " channels, " + w.channels(scale) + " wanted); use a fresh database");
            }
            return;
        } catch (StoreException absent) {
            // not there yet: populate
        }
        long total = w.totalIovs(scale);
        long t0 = System.nanoTime();
        long[] last = {t0};
        new WorkloadGenerator(store, 20260101L).populate(w, scale, n -> {
            long now = System.nanoTime();
            if (options.progress() && (now - last[0] > 2_000_000_000L || n == total)) {
                last[0] = now;
                System.err.printf(Locale.ROOT, "  populating %s (scale %s): %d/%d IOVs%n", w.label(), scale, n, total);
            }
        });
        settle();
        description.put("populated " + w.label(), String.format(Locale.ROOT, "scale %s: %d folders x %d channels x %d IOVs"
                        + " = %d IOVs in %.1f s", scale, w.folders(scale), w.channels(scale), w.iovsPerChannel(scale),
                total, (System.nanoTime() - t0) / 1e9));
    }

    /**
     * After a bulk load, PostgreSQL gets what a DBA would run: VACUUM ANALYZE sets the rows' hint bits and the
     * visibility map and refreshes the statistics. Without it, whichever mode runs first pays for that work
     * (and competes with autovacuum), which skews the comparison.
     */
    private void settle() {
        if (!jdbcUrl.startsWith("jdbc:postgresql:")) {
            return;
        }
        try (var c = java.sql.DriverManager.getConnection(jdbcUrl, user, password); var st = c.createStatement()) {
            c.setAutoCommit(true);
            st.execute("VACUUM ANALYZE");
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException("VACUUM ANALYZE after populating failed: " + e.getMessage(), e);
        }
    }

    /** The Outpost URL, starting the service in-process on the first call unless one was given. */
    public synchronized String outpostUrl() {
        if (outpostUrl == null) {
            if (options.outpostUrl() != null) {
                outpostUrl = options.outpostUrl();
                description.put("service", "given: " + outpostUrl);
            } else {
                List<String> args = new ArrayList<>(List.of("--server.port=0", "--server.address=127.0.0.1",
                        "--server.tomcat.basedir=" + options.workDir().resolve("tomcat").toAbsolutePath(),
                        "--outpost.database.url=" + jdbcUrl, "--outpost.demo-data=false",
                        "--outpost.database.read-pool-size=" + Math.max(4, options.readPool()),
                        "--logging.level.root=WARN", "--logging.level.io.outpost=WARN",
                        "--logging.level.outpost.access=WARN"));
                if (user != null) {
                    args.add("--outpost.database.user=" + user);
                    args.add("--outpost.database.password=" + (password == null ? "" : password));
                }
                SpringApplication app = new SpringApplication(OutpostApplication.class);
                app.setBannerMode(Banner.Mode.OFF);
                app.setLogStartupInfo(false);
                service = app.run(args.toArray(String[]::new));
                outpostUrl = "http://127.0.0.1:" + service.getEnvironment().getProperty("local.server.port");
                description.put("service", "Outpost in-process at " + outpostUrl);
            }
            metrics = new ServiceMetrics(outpostUrl);
        }
        return outpostUrl;
    }

    /** The service's database loads so far, or null when its metrics cannot be read. */
    public Long serviceDatabaseLoads() {
        outpostUrl();
        long n = metrics.databaseLoads();
        return n < 0 ? null : n;
    }

    public synchronized SquidProcess squid() throws IOException, InterruptedException {
        if (squid == null) {
            Path dir = options.workDir().resolve("squid");
            String url = outpostUrl();
            // the site configuration when run from the source tree, a minimal one of its own from the jar elsewhere
            squid = SquidProcess.findScript()
                    .map(script -> SquidProcess.start(dir, script, "outpost-loadtest", "--outpost", url,
                            "--cache-mem", "256", "--cache-disk", "1000", "--timeout", "60"))
                    .orElseGet(() -> SquidProcess.startStandalone(dir, "outpost-loadtest", 256));
            description.put("squid", squid.describe());
            if (split.isPresent() && !split.get().giveServer(squid.pid())) {
                description.put("cpu split", "database server on CPUs " + split.get().servers()
                        + "; generator, service and Squid on CPUs " + split.get().generator());
            }
        }
        return squid;
    }

    public Target target(Mode mode, Duration timeout) throws IOException, InterruptedException {
        return switch (mode) {
            case DIRECT -> new DirectTarget(store);
            case PROXIED -> new HttpTarget(mode, outpostUrl(), null, timeout, distinctKeys);
            case CACHED -> new HttpTarget(mode, outpostUrl(), squid().address(), timeout, distinctKeys);
        };
    }

    public Optional<String> sqliteFile() {
        return jdbcUrl.startsWith("jdbc:sqlite:") ? Optional.of(jdbcUrl.substring("jdbc:sqlite:".length())) : Optional.empty();
    }

    @Override
    public void close() {
        if (squid != null) {
            try {
                squid.close();
            } catch (RuntimeException e) {
                System.err.println("warning: stopping Squid: " + e.getMessage());
            }
        }
        if (metrics != null) {
            metrics.close();
        }
        if (service != null) {
            service.close();
        }
        store.close();
    }
}
