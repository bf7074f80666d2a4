package io.outpost.loadtest.grid;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Hosts as Linux network namespaces joined by veth pairs to one bridge, which lives in a namespace of its own: every
 * address (198.18.0.0/24, the benchmarking range) exists only inside namespaces this object created, and
 * {@link #close} (also run at JVM exit) kills the processes it started and deletes the namespaces, which takes the
 * veths and the bridge with them. Link faults are nftables rules in a host's namespace; latency needs the kernel's
 * netem queueing discipline, which not every kernel has ({@link #degrade} says what it could apply).
 */
public final class GridNetwork implements AutoCloseable {
    /** One host: its namespace, its interface towards the bridge and its address. */
    public record Host(String name, String namespace, String address) {
    }

    private static final String SUBNET = "198.18.0.";

    private final String id;
    private final String hub;
    private final Map<String, Host> hosts = new LinkedHashMap<>();
    private final List<Process> processes = new ArrayList<>();
    private final Thread exitHook = new Thread(this::removeAll, "grid-network-removal");
    private boolean closed;

    /** Why this machine cannot build the grid (not root, no ip, no netns), or empty when it can. */
    public static Optional<String> unavailable() {
        if (!"root".equals(System.getProperty("user.name"))) {
            return Optional.of("network namespaces need root");
        }
        try {
            Process p = new ProcessBuilder("ip", "netns", "list").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
                return Optional.of("'ip netns' does not work here");
            }
        } catch (IOException e) {
            return Optional.of("iproute2 ('ip') is not installed");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.of("interrupted");
        }
        if (!Files.isExecutable(Path.of("/usr/sbin/nft")) && !Files.isExecutable(Path.of("/sbin/nft"))) {
            return Optional.of("nftables ('nft', for partitions and packet loss) is not installed");
        }
        return Optional.empty();
    }

    private final boolean owner;

    private GridNetwork(String id, boolean owner) {
        this.id = id;
        this.hub = id + "-hub";
        this.owner = owner;
        Runtime.getRuntime().addShutdownHook(exitHook);
    }

    /** A new network: the bridge's namespace; hosts come with {@link #host}. */
    public static GridNetwork create() {
        GridNetwork n = new GridNetwork("og" + ProcessHandle.current().pid() % 100_000, true);
        try {
            ip("netns", "add", n.hub);
            inNs(n.hub, "ip", "link", "add", "br0", "type", "bridge");
            inNs(n.hub, "ip", "link", "set", "br0", "up");
            return n;
        } catch (RuntimeException e) {
            n.close();
            throw e;
        }
    }

    /**
     * The network made by another process (the grid's driver runs inside it): the hosts, in the order they were
     * made, without creating anything; {@link #close} then only kills the processes started through this object.
     */
    public static GridNetwork attach(String id, List<String> hostNames) {
        GridNetwork n = new GridNetwork(id, false);
        for (String name : hostNames) {
            int k = n.hosts.size() + 10;
            n.hosts.put(name, new Host(name, id + "-" + name, SUBNET + k));
        }
        return n;
    }

    public String id() {
        return id;
    }

    public synchronized List<String> hostNames() {
        return List.copyOf(hosts.keySet());
    }

    /** A new host, address 198.18.0.(10 + number of hosts so far), with loopback up and one link to the bridge. */
    public synchronized Host host(String name) {
        int n = hosts.size() + 10;
        String ns = id + "-" + name;
        String hubSide = "v" + id.substring(2) + "h" + n; // at most 15 characters
        Host h = new Host(name, ns, SUBNET + n);
        ip("netns", "add", ns);
        hosts.put(name, h);
        ip("link", "add", hubSide, "netns", hub, "type", "veth", "peer", "name", "eth0", "netns", ns);
        inNs(hub, "ip", "link", "set", hubSide, "master", "br0");
        inNs(hub, "ip", "link", "set", hubSide, "up");
        inNs(ns, "ip", "link", "set", "lo", "up");
        inNs(ns, "ip", "addr", "add", h.address() + "/24", "dev", "eth0");
        inNs(ns, "ip", "link", "set", "eth0", "up");
        inNs(ns, "nft", "add", "table", "inet", "grid");
        inNs(ns, "nft", "add", "chain", "inet", "grid", "in", "{ type filter hook input priority 0; }");
        inNs(ns, "nft", "add", "chain", "inet", "grid", "out", "{ type filter hook output priority 0; }");
        return h;
    }

    public synchronized Host get(String name) {
        return hosts.get(name);
    }

    /** Starts {@code cmd} inside the host's namespace, output to {@code log}; {@link #close} kills it. */
    public synchronized Process start(Host h, List<String> cmd, Path log) {
        List<String> full = new ArrayList<>(List.of("ip", "netns", "exec", h.namespace()));
        full.addAll(cmd);
        try {
            Files.createDirectories(log.getParent());
            Process p = new ProcessBuilder(full).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
            processes.add(p);
            return p;
        } catch (IOException e) {
            throw new IllegalStateException("cannot start " + String.join(" ", cmd) + " on " + h.name(), e);
        }
    }

    /** Runs a short command inside the host's namespace and returns its output; fails when it fails. */
    public String run(Host h, String... cmd) {
        return inNs(h.namespace(), cmd);
    }

    /** Drops every packet between {@code a} and {@code b} (rules on a's side) until {@link #heal}. */
    public void partition(Host a, Host b) {
        inNs(a.namespace(), "nft", "add", "rule", "inet", "grid", "out", "ip", "daddr", b.address(), "drop",
                "comment", "\"partition\"");
        inNs(a.namespace(), "nft", "add", "rule", "inet", "grid", "in", "ip", "saddr", b.address(), "drop",
                "comment", "\"partition\"");
    }

    /** Removes every fault rule of the host (partitions and loss) and its netem queue, if any. */
    public void heal(Host h) {
        inNs(h.namespace(), "nft", "flush", "chain", "inet", "grid", "in");
        inNs(h.namespace(), "nft", "flush", "chain", "inet", "grid", "out");
        tryInNs(h.namespace(), "tc", "qdisc", "del", "dev", "eth0", "root");
    }

    /**
     * Adds latency and random loss to the host's link: netem where the kernel has it; else only the loss, as
     * nftables rules (each packet in or out dropped with the given chance). Returns what was applied.
     */
    public String degrade(Host h, int delayMillis, int lossPercent) {
        if (tryInNs(h.namespace(), "tc", "qdisc", "add", "dev", "eth0", "root", "netem", "delay", delayMillis + "ms",
                "loss", lossPercent + "%")) {
            return "netem: " + delayMillis + " ms delay, " + lossPercent + " % loss";
        }
        for (String chain : List.of("in", "out")) {
            inNs(h.namespace(), "nft", "add", "rule", "inet", "grid", chain, "numgen", "random", "mod", "100", "<",
                    Integer.toString(lossPercent), "drop");
        }
        return "nftables: " + lossPercent + " % loss each way; no delay (this kernel has no netem)";
    }

    /** Kills every process started here, deletes every namespace (with its links); idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        removeAll();
        try {
            Runtime.getRuntime().removeShutdownHook(exitHook);
        } catch (IllegalStateException e) {
            // the JVM is exiting: the hook runs anyway and finds nothing left
        }
    }

    private synchronized void removeAll() {
        for (Process p : processes) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
        for (Process p : processes) {
            try {
                p.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        processes.clear();
        if (!owner) {
            return;
        }
        for (Host h : hosts.values()) {
            killEverythingIn(h.namespace()); // also what other processes started there
            tryInNs(null, "ip", "netns", "del", h.namespace());
        }
        hosts.clear();
        tryInNs(null, "ip", "netns", "del", hub);
    }

    private static void killEverythingIn(String ns) {
        String pids = exec(List.of("ip", "netns", "pids", ns), false);
        if (pids == null) {
            return;
        }
        for (String pid : pids.split("\\s+")) {
            if (!pid.isBlank()) {
                ProcessHandle.of(Long.parseLong(pid.strip())).ifPresent(ProcessHandle::destroyForcibly);
            }
        }
    }

    private static void ip(String... args) {
        List<String> cmd = new ArrayList<>(List.of("ip"));
        cmd.addAll(List.of(args));
        exec(cmd, true);
    }

    private static String inNs(String ns, String... cmd) {
        return exec(command(ns, cmd), true);
    }

    private static boolean tryInNs(String ns, String... cmd) {
        return exec(command(ns, cmd), false) != null;
    }

    private static List<String> command(String ns, String... cmd) {
        List<String> full = new ArrayList<>();
        if (ns != null) {
            full.addAll(List.of("ip", "netns", "exec", ns));
        }
        full.addAll(List.of(cmd));
        return full;
    }

    /** Runs a command to its end (at most 30 s); on failure throws when {@code must}, else returns null. */
    private static String exec(List<String> cmd, boolean must) {
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes());
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                out = "did not finish in 30 s";
            } else if (p.exitValue() == 0) {
                return out;
            }
            if (must) {
                throw new IllegalStateException(String.join(" ", cmd) + " failed: " + out.strip());
            }
            return null;
        } catch (IOException e) {
            if (must) {
                throw new IllegalStateException(String.join(" ", cmd) + ": " + e.getMessage(), e);
            }
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
