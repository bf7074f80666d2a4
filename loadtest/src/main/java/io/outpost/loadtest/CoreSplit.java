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
 * Splits the CPUs between the servers a mode reads from and the rest, with {@code taskset}: the database server (and
 * later the Squid, {@link Split#giveServer}) on the first half of those this process may use, this process (the
 * generator and the in-process service) on the others. In a deployment the database and the site's Squid are
 * servers of their own; on one small machine, without the split, the service's CPU would be taken from the
 * database's, which no deployment does, and the proxied-versus-direct comparison would measure that instead of whether
 * the service keeps the database busy. Squid shares the database's half because the two are never busy together:
 * cached mode reads hits (the database idle), the other modes do not go through Squid. With Squid on the generator's
 * half instead, cached mode had one CPU where direct mode had two (the database's and the generator's), and the
 * generator's own decoding took most of it.
 */
final class CoreSplit {
    private CoreSplit() {
    }

    /** The split made: the servers' CPUs and the generator's, as taskset lists. */
    record Split(String servers, String generator) {
        String describe() {
            return "database server and Squid on CPUs " + servers + "; generator and service on CPUs " + generator;
        }

        /**
         * Moves a server started after the split (Squid: its daemon and the processes it forks) to the servers' CPUs;
         * returns false when it could not be moved (the server then shares the generator's CPUs).
         */
        boolean giveServer(long pid) {
            List<Long> pids = new ArrayList<>();
            pids.add(pid);
            ProcessHandle.of(pid).ifPresent(p -> p.descendants().forEach(d -> pids.add(d.pid())));
            try {
                for (long each : pids) {
                    taskset(servers, each);
                }
                return true;
            } catch (IllegalStateException e) {
                System.err.println("outpost-loadtest: server " + pid + " not moved to CPUs " + servers + " ("
                        + e.getMessage() + ")");
                return false;
            }
        }
    }

    /** Splits the CPUs; returns what was done, or empty with nothing changed when it is not possible. */
    static Optional<Split> apply(long databasePid) {
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
        return Optional.of(new Split(list(db), list(rest)));
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
