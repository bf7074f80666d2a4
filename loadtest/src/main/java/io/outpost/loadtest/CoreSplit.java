package io.outpost.loadtest;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Gives the database server its own CPUs (the first half of those this process may use) and this process (the
 * generator, the in-process service, and the Squid it starts) the others, with {@code taskset}. In a deployment
 * the database is a separate server; on one small machine, without the split, the service's CPU would be taken
 * from the database's, which no deployment does, and the proxied-versus-direct comparison would measure that
 * instead of whether the service keeps the database busy.
 */
final class CoreSplit {
    private CoreSplit() {
    }

    /** Splits the CPUs; returns what was done, or empty with nothing changed when it is not possible. */
    static Optional<String> apply(long databasePid) {
        List<Integer> cpus = allowedCpus();
        if (cpus.size() < 2 || !tasksetAvailable()) {
            return Optional.empty();
        }
        List<Integer> db = cpus.subList(0, cpus.size() / 2);
        List<Integer> rest = cpus.subList(cpus.size() / 2, cpus.size());
        List<Long> dbPids = new ArrayList<>();
        dbPids.add(databasePid);
        ProcessHandle.of(databasePid).ifPresent(p -> p.descendants().forEach(d -> dbPids.add(d.pid())));
        try {
            for (long pid : dbPids) {
                taskset(list(db), pid); // server processes forked later inherit the postmaster's CPUs
            }
            taskset(list(rest), ProcessHandle.current().pid()); // threads and processes started later inherit these
        } catch (IllegalStateException e) {
            // e.g. a container that forbids changing affinity: undo what was done, run with shared CPUs
            for (long pid : dbPids) {
                tryTaskset(list(cpus), pid);
            }
            System.err.println("outpost-loadtest: CPUs not split (" + e.getMessage() + "); all roles share them");
            return Optional.empty();
        }
        return Optional.of("database server on CPUs " + list(db) + "; generator, service and Squid on CPUs " + list(rest));
    }

    /** The CPUs this process may run on, from /proc/self/status (Cpus_allowed_list: 0-3,6). */
    static List<Integer> allowedCpus() {
        try (Stream<String> lines = Files.lines(Path.of("/proc/self/status"))) {
            return lines.filter(l -> l.startsWith("Cpus_allowed_list:")).findFirst()
                    .map(l -> parseList(l.substring(l.indexOf(':') + 1).trim())).orElse(List.of());
        } catch (IOException | RuntimeException e) {
            return List.of();
        }
    }

    static List<Integer> parseList(String s) {
        List<Integer> out = new ArrayList<>();
        for (String part : s.split(",")) {
            if (part.isBlank()) {
                continue;
            }
            String[] r = part.trim().split("-");
            int from = Integer.parseInt(r[0]);
            int to = r.length > 1 ? Integer.parseInt(r[1]) : from;
            for (int c = from; c <= to; c++) {
                out.add(c);
            }
        }
        return out;
    }

    static String list(List<Integer> cpus) {
        return String.join(",", cpus.stream().map(String::valueOf).toList());
    }

    private static boolean tasksetAvailable() {
        try {
            return run(List.of("taskset", "-V"));
        } catch (IOException e) {
            return false;
        }
    }

    private static void taskset(String cpus, long pid) {
        try {
            if (!run(List.of("taskset", "-a", "-p", "-c", cpus, Long.toString(pid)))) {
                throw new IllegalStateException("taskset -a -p -c " + cpus + " " + pid + " failed");
            }
        } catch (IOException e) {
            throw new IllegalStateException("taskset failed: " + e.getMessage(), e);
        }
    }

    private static void tryTaskset(String cpus, long pid) {
        try {
            run(List.of("taskset", "-a", "-p", "-c", cpus, Long.toString(pid)));
        } catch (IOException e) {
            // best effort
        }
    }

    private static boolean run(List<String> cmd) throws IOException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        try {
            p.getInputStream().readAllBytes();
            return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroy();
            return false;
        }
    }
}
