package io.outpost.server.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.FileAppender;
import ch.qos.logback.core.OutputStreamAppender;
import io.outpost.server.cache.Catalog;
import io.outpost.server.support.RunningService;
import io.outpost.server.support.WireDecoder;
import io.outpost.store.IovStore;
import io.outpost.store.workload.Workload;
import io.outpost.testkit.TempDirs;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Native memory hits (answered by MemoryHitValve inside Tomcat) against nginx serving the same bytes from a file:
 * a ~500 B and a ~420 KB answer, at 1 and 20 connections, with the access logs off on both and on on both (the
 * service's {@code outpost.access} lines to a file with the access log's own pattern, and with Spring Boot's console
 * pattern that they had before; nginx's combined format to a file), for each way of running Tomcat listed in
 * {@link #CANDIDATES} (virtual threads were one: docs/decisions.md, "HTTP stack"), all started in this run and taking turns with nginx ({@value #ROUNDS} rounds of 3 s each; the ratio is the median
 * of the rounds' ratios). Each server's CPU time per hit over the timed runs is printed too (the service's JVM; nginx's
 * master and workers), and the load average. Every response of a short run per server is checked (status 200, the
 * body's length), and every timed run's errors and bytes per response ({@link ExternalTools#wrk}). Target: at least
 * 0.7 of nginx's rate. Run with {@code ./mvnw -B -ntp -Pbenchmark test -pl server/app -Dtest=MemoryHitBenchmarks};
 * {@code -Dbench.jfr=DIR} records the default candidate's first round at 20 connections with JFR into DIR.
 */
@Tag("benchmark")
class MemoryHitBenchmarks {
    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    private static final String AT = "/v1/bin/at/HEAD/" + (Workload.T0 + 1);
    private static final String[][] CANDIDATES = {
        {"Tomcat NIO2 (default)"},
    };
    private static final int ROUNDS = 3;

    @Test
    void memoryHitsAgainstNginx() throws Exception {
        assumeTrue(ExternalTools.available("nginx") && ExternalTools.available("wrk"),
                "nginx and wrk are not installed (./outpost bench installs them)");
        List<RunningService> services = new ArrayList<>();
        Path root = TempDirs.create("outpost-static");
        Path logs = TempDirs.create("outpost-access");
        List<String> lines = new ArrayList<>();
        try (ExternalTools.Nginx quiet = new ExternalTools.Nginx(root, false);
             ExternalTools.Nginx logging = new ExternalTools.Nginx(root, true)) {
            for (String[] c : CANDIDATES) {
                List<String> args = new ArrayList<>(List.of("--outpost.demo-data=false",
                        "--logging.level.outpost.access=warn"));
                args.addAll(List.of(c).subList(1, c.length));
                RunningService svc = RunningService.startSqliteDemo(args.toArray(String[]::new));
                services.add(svc);
                BenchData.load(svc.bean(IovStore.class), false);
                svc.bean(Catalog.class).refresh();
            }
            List<AccessLog> modes = List.of(new AccessLog("off", null),
                    new AccessLog("on, Spring Boot's console pattern", pattern(org.slf4j.Logger.ROOT_LOGGER_NAME,
                            "CONSOLE")),
                    new AccessLog("on, the access log's own pattern", pattern("outpost.access", "ACCESS")));
            // six channels of the small folder (~500 B), and likeLuis1iov's 10k channels (~420 KB)
            String[][] answers = {{"small", AT + "/0-5" + BenchData.SMALL}, {"large", AT + "/all" + BenchData.LUIS}};
            for (String[] a : answers) {
                byte[] body = services.get(0).get(a[1]).body();
                WireDecoder.decode(body);
                Files.write(root.resolve(a[0] + ".bin"), body);
                for (RunningService svc : services) {
                    assertThat(svc.get(a[1]).body()).as("the same answer from every candidate").isEqualTo(body);
                }
                ExternalTools.Expected expected = ExternalTools.Expected.body(body.length);
                for (AccessLog mode : modes) {
                    accessLog(mode, logs.resolve(mode.file() + ".log"));
                    boolean logged = mode.pattern() != null;
                    ExternalTools.Nginx nginx = logged ? logging : quiet;
                    String nginxUrl = "http://127.0.0.1:" + nginx.port + "/" + a[0] + ".bin";
                    ExternalTools.verify(nginxUrl, 20, null, expected);
                    for (RunningService svc : services) {
                        ExternalTools.verify(svc.url(a[1]), 20, null, expected);
                    }
                    for (int conns : new int[] {1, 20}) {
                        lines.addAll(cell(services, nginx, nginxUrl, a[1], body.length, mode, conns, expected));
                    }
                }
            }
            lines.forEach(ServiceBenchmarks::report);
            for (AccessLog mode : modes.subList(1, modes.size())) {
                try (var log = Files.lines(logs.resolve(mode.file() + ".log"))) {
                    ServiceBenchmarks.report("access log " + mode.name() + ": " + log.findFirst().orElse("none"));
                }
            }
        } finally {
            services.forEach(RunningService::close);
            TempDirs.deleteQuietly(root);
            TempDirs.deleteQuietly(logs);
        }
    }

    /** One answer, log mode and connection count: every candidate against nginx, rounds alternating. */
    private static List<String> cell(List<RunningService> services, ExternalTools.Nginx nginx, String nginxUrl,
                                     String path, int bytes, AccessLog mode, int conns,
                                     ExternalTools.Expected expected) throws Exception {
        int threads = Math.min(2, conns);
        for (RunningService svc : services) { // warm-up: the JIT, and the answer cached in each
            ExternalTools.wrk(svc.url(path), threads, conns, 2, null, expected);
        }
        double load0 = loadAverage();
        double[][] ratios = new double[services.size()][ROUNDS];
        double[][] rates = new double[services.size()][2];
        double[][] cpuUs = new double[services.size()][2]; // µs per hit: the service, nginx
        String jfr = System.getProperty("bench.jfr");
        for (int round = 0; round < ROUNDS; round++) {
            for (int i = 0; i < services.size(); i++) {
                long cpu0 = OS.getProcessCpuTime();
                String url = services.get(i).url(path);
                double outpost = jfr != null && i == 0 && round == 0 && conns == 20
                        ? recorded(Path.of(jfr, String.format(Locale.ROOT, "hit-%d-%d.jfr", bytes,
                                mode.file())), () -> ExternalTools.wrk(url, threads, conns, 3, null,
                                expected))
                        : ExternalTools.wrk(url, threads, conns, 3, null, expected);
                long cpu1 = OS.getProcessCpuTime();
                long nginx0 = nginx.cpuNanos();
                double reference = ExternalTools.wrk(nginxUrl, threads, conns, 3, null, expected);
                long nginx1 = nginx.cpuNanos();
                ratios[i][round] = outpost / reference;
                rates[i][0] += outpost / ROUNDS;
                rates[i][1] += reference / ROUNDS;
                cpuUs[i][0] += (cpu1 - cpu0) / 1e3 / (outpost * 3) / ROUNDS;
                cpuUs[i][1] += (nginx1 - nginx0) / 1e3 / (reference * 3) / ROUNDS;
            }
        }
        double load1 = loadAverage();
        List<String> out = new ArrayList<>();
        for (int i = 0; i < services.size(); i++) {
            double[] r = ratios[i].clone();
            Arrays.sort(r);
            out.add(String.format(Locale.ROOT, "memory hit %d bytes, access logs %s, %d connection(s), %s: %.0f vs "
                    + "nginx %.0f req/s, Outpost/nginx median ratio %.2f (rounds %.2f-%.2f; target >= 0.7); CPU per "
                    + "hit %.1f vs nginx %.1f us; load average %.1f -> %.1f", bytes, mode.name(), conns,
                    CANDIDATES[i][0], rates[i][0], rates[i][1], r[ROUNDS / 2], r[0], r[ROUNDS - 1], cpuUs[i][0],
                    cpuUs[i][1], load0, load1));
        }
        return out;
    }

    /**
     * How the service's access-log lines are written in a run (all services of this JVM share one logging system):
     * not at all, or to a file with a pattern, as nginx writes its own to a file.
     */
    private record AccessLog(String name, String pattern) {
        /** A file name for the mode's log and profile. */
        String file() {
            return name.replaceAll("\\W+", "-");
        }
    }

    /**
     * Points the access logger at a file appender with the mode's pattern (none: the logger off), in place of the
     * service's own appenders (standard output).
     */
    private static void accessLog(AccessLog mode, Path file) {
        LoggerContext ctx = (LoggerContext) LoggerFactory.getILoggerFactory();
        Logger access = ctx.getLogger("outpost.access");
        access.setAdditive(false);
        access.detachAndStopAllAppenders();
        if (mode.pattern() == null) {
            access.setLevel(Level.WARN);
            return;
        }
        PatternLayoutEncoder encoder = new PatternLayoutEncoder();
        encoder.setContext(ctx);
        encoder.setPattern(mode.pattern());
        encoder.start();
        FileAppender<ILoggingEvent> appender = new FileAppender<>();
        appender.setContext(ctx);
        appender.setName("ACCESS-FILE");
        appender.setFile(file.toString());
        appender.setEncoder(encoder);
        appender.start();
        access.addAppender(appender);
        access.setLevel(Level.INFO);
    }

    /** The pattern of the named appender of a logger, as the service's logging configuration set it. */
    private static String pattern(String logger, String appender) {
        LoggerContext ctx = (LoggerContext) LoggerFactory.getILoggerFactory();
        var a = (OutputStreamAppender<ILoggingEvent>) ctx.getLogger(logger).getAppender(appender);
        return ((PatternLayoutEncoder) a.getEncoder()).getPattern();
    }

    private static double loadAverage() throws Exception {
        return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
    }

    @FunctionalInterface
    private interface Timed {
        double run() throws Exception;
    }

    private static double recorded(Path file, Timed timed) throws Exception {
        try (jdk.jfr.Recording r = new jdk.jfr.Recording(jdk.jfr.Configuration.getConfiguration("profile"))) {
            r.start();
            double rate = timed.run();
            r.stop();
            r.dump(file);
            return rate;
        }
    }
}
