package io.outpost.loadtest.grid;

import io.outpost.testkit.SquidProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code outpost-loadtest grid}: a grid in a box. Builds the hosts as network namespaces (root, iproute2, nftables),
 * runs the scenario ({@link GridDriver}) inside the writer host, bounded in time, and removes every namespace and
 * process again, also on failure. Exit code 0: every target met; 1: a target missed; 2: the run failed; 3: this
 * machine cannot build the grid (the reason is printed).
 */
@Command(name = "grid", mixinStandardHelpOptions = true,
        description = "A grid in a box: PostgreSQL primary + replica, two Outpost origins, a regional and two site "
                + "Squids, client hosts and a writer as Linux network namespaces (198.18.0.0/24), with faults at known "
                + "times; report per fault in OUT/summary.txt and OUT/report.html. Needs root.")
public final class GridCommand implements Callable<Integer> {
    public static final int CANNOT_RUN = 3;

    @Mixin
    GridPlan plan;

    @Override
    public Integer call() throws Exception {
        Optional<String> why = GridNetwork.unavailable()
                .or(() -> SquidProcess.installed() ? Optional.empty() : Optional.of(SquidProcess.NOT_INSTALLED));
        if (why.isPresent()) {
            System.out.println("grid: cannot run here: " + why.get());
            return CANNOT_RUN;
        }
        Path logs = plan.out.resolve("logs");
        Files.createDirectories(logs);
        Files.createDirectories(plan.out.resolve("tmp"));
        for (Path p : List.of(plan.out, plan.out.resolve("tmp"), logs)) {
            // PostgreSQL (user nobody) and Squid (user proxy) keep their data below: they must be able to get there
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        List<String> hosts = new ArrayList<>(List.of("writer", "db1", "db2", "origin1", "origin2", "regional", "site1",
                "site2"));
        for (int c = 1; c <= plan.clientHosts; c++) {
            hosts.add("client" + c);
        }
        try (GridNetwork net = GridNetwork.create()) {
            for (String h : hosts) {
                net.host(h);
            }
            List<String> args = new ArrayList<>(List.of("grid-drive", "--id", net.id(), "--hosts",
                    String.join(",", hosts)));
            args.addAll(plan.args());
            Process driver = net.start(net.get("writer"), GridJava.command("512m", plan.out.resolve("tmp/driver"), args), logs.resolve("driver.log"));
            if (!driver.waitFor(plan.boundSeconds(), TimeUnit.SECONDS)) {
                System.out.println("grid: the run did not end within " + plan.boundSeconds() + " s; stopped");
                return 2;
            }
            Path summary = plan.out.resolve("summary.txt");
            if (driver.exitValue() > 1 || !Files.exists(summary)) {
                System.out.println("grid: the run failed (exit " + driver.exitValue() + "); see " + logs);
                List<String> log = Files.readAllLines(logs.resolve("driver.log"));
                log.subList(Math.max(0, log.size() - 40), log.size()).forEach(System.out::println);
                return 2;
            }
            System.out.print(Files.readString(summary));
            return driver.exitValue();
        }
    }
}
