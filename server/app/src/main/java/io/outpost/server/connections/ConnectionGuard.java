package io.outpost.server.connections;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.apache.coyote.AbstractProcessor;
import org.apache.coyote.Constants;
import org.apache.coyote.Request;
import org.apache.juli.logging.Log;
import org.apache.juli.logging.LogFactory;
import org.apache.tomcat.util.net.AbstractEndpoint;
import org.apache.tomcat.util.net.SocketEvent;
import org.apache.tomcat.util.net.SocketWrapperBase;

/**
 * The connection limits Tomcat lacks (docs/operations.md, "Limits and exposure"):
 * <ul>
 * <li>connections per client address: one host holding {@code max-connections} idle sockets would lock every other
 * client out, so a connection beyond {@code maxPerAddress} from one address is closed as soon as it is accepted
 * (trusted proxies, the site Squids, and the host itself are not limited);</li>
 * <li>a deadline for a request's head from its first byte: Tomcat's {@code connection-timeout} bounds each pause
 * between bytes, so a client sending a header byte every few seconds would hold its connection for ever. Blank
 * lines before a request line count as its first bytes ({@link GuardedHttp11Processor}).</li>
 * <li>a short idle timeout when busy: once the open connections reach a share of {@code max-connections}, a
 * connection idle between requests, or that has sent nothing (or only blank lines), is closed after
 * {@code busyIdleTimeout} instead of Tomcat's keep-alive or connection timeout, as nginx and Apache's event MPM
 * reclaim idle connections when short of them. Below that share nothing changes (a Squid's persistent connections
 * keep Tomcat's keep-alive timeout).</li>
 * <li>busy connections closed after their answer when busy: a connection that keeps sending cheap requests is never
 * idle, so once the open connections reach that share the oldest of those used more than once (not from trusted
 * proxies or unlimited addresses) are answered once more with {@code Connection: close} ({@link KeepAliveValve}), enough to bring the
 * open connections back below the share; the client reconnects behind those already waiting.</li>
 * <li>IPv6 clients counted by prefix: a host holds a whole /64, so the per-address limit counts addresses sharing
 * their first {@code ipv6PrefixLength} bits as one.</li>
 * </ul>
 * The endpoint of {@link GuardedNio2Protocol} reports each accepted and each closed socket here, its processor what
 * each connection is doing; a sweep closes heads over their deadline, and idle connections when busy, through
 * Tomcat's own error path.
 */
public final class ConnectionGuard implements AutoCloseable {
    private static final Log log = LogFactory.getLog(ConnectionGuard.class);

    /** The connection the current thread is serving, for {@link #closeAfterThisAnswer()}. */
    private static final ThreadLocal<Activity> SERVED = new ThreadLocal<>();
    private final int maxPerAddress;
    private final int ipv6PrefixLength;
    private final long headTimeoutNanos;
    private final Predicate<InetAddress> unlimited;
    private final Map<Object, InetAddress> peers = new ConcurrentHashMap<>();
    private final Map<InetAddress, AtomicInteger> perAddress = new ConcurrentHashMap<>();
    /** What the processor last did with each connection it served (see {@link Activity}). */
    private final Map<SocketWrapperBase<?>, Activity> activity = new ConcurrentHashMap<>();
    private final int busyPercent;
    private final long busyIdleNanos;
    private final ScheduledExecutorService sweeper;
    private final Counter refused;
    private final Counter overdue;
    private final Counter idleWhenBusy;
    private final Counter busyKeepAlive;

    /**
     * @param maxPerAddress connections one client address may hold at once; 0 or less: no limit
     * @param headTimeout   longest time from a request's first byte to the end of its headers
     * @param unlimited     addresses exempt from the per-address limit (trusted proxies, the host itself)
     * @param busy          when idle connections get the shorter timeout
     * @param registry      where the refusals and closed connections are counted ({@code outpost.connections.closed})
     */
    public ConnectionGuard(int maxPerAddress, Duration headTimeout, Predicate<InetAddress> unlimited, Busy busy,
                           MeterRegistry registry) {
        this(maxPerAddress, 64, headTimeout, unlimited, busy, registry);
    }

    /**
     * The values as {@link HttpProperties} checked them (the rules on each live there).
     *
     * @param ipv6PrefixLength leading bits of an IPv6 address that name one client for the per-address limit (64: a
     *                         host's whole /64 counts as one address; 128: each address alone)
     */
    public ConnectionGuard(int maxPerAddress, int ipv6PrefixLength, Duration headTimeout,
                           Predicate<InetAddress> unlimited, Busy busy, MeterRegistry registry) {
        this.ipv6PrefixLength = ipv6PrefixLength;
        this.maxPerAddress = maxPerAddress;
        this.headTimeoutNanos = headTimeout.toNanos();
        this.unlimited = unlimited;
        this.busyPercent = busy.percent();
        this.busyIdleNanos = busy.idleTimeout().toNanos();
        this.refused = Counter.builder("outpost.connections.closed").tag("reason", "per-address-limit")
                .description("connections closed unanswered by Outpost's connection limits").register(registry);
        this.overdue = Counter.builder("outpost.connections.closed").tag("reason", "request-head-timeout")
                .description("connections closed unanswered by Outpost's connection limits").register(registry);
        this.idleWhenBusy = Counter.builder("outpost.connections.closed").tag("reason", "busy-idle-timeout")
                .description("connections closed unanswered by Outpost's connection limits").register(registry);
        // (closed after an answer, not unanswered; one meter name keeps the reasons side by side)
        this.busyKeepAlive = Counter.builder("outpost.connections.closed").tag("reason", "busy-keep-alive")
                .description("connections closed unanswered by Outpost's connection limits").register(registry);
        this.sweeper = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon()
                .name("outpost-connection-sweep").factory());
    }

    /**
     * When idle connections get a shorter timeout: from {@code percent} % of {@code max-connections} open (0 or
     * less: never), {@code idleTimeout} after their last answer or their opening.
     */
    public record Busy(int percent, Duration idleTimeout) {
    }

    /**
     * Starts the sweep over the endpoint's connections: four times per deadline (the head deadline or the busy idle
     * timeout, the shorter), at most every second.
     */
    void watch(AbstractEndpoint<?, ?> endpoint) {
        long shortest = busyPercent > 0 ? Math.min(headTimeoutNanos, busyIdleNanos) : headTimeoutNanos;
        long period = Math.clamp(shortest / 4, 10_000_000L, 1_000_000_000L);
        sweeper.scheduleWithFixedDelay(() -> sweep(endpoint), period, period, TimeUnit.NANOSECONDS);
    }

    /** A socket's peer address, as the endpoint's channel reports it. */
    @FunctionalInterface
    interface PeerAddress {
        SocketAddress get() throws IOException;
    }

    /**
     * Called by an endpoint for each accepted socket before Tomcat sets it up: true when it must be closed unanswered
     * (its address already holds its share, or it is gone already).
     */
    static boolean refuses(ConnectionGuard guard, Object socket, PeerAddress peer) {
        if (guard == null) {
            return false;
        }
        SocketAddress remote;
        try {
            remote = peer.get();
        } catch (IOException gone) {
            return true;
        }
        return remote instanceof InetSocketAddress inet && !guard.admit(socket, inet.getAddress());
    }

    /** Called by an endpoint for every socket it closes (idempotent). */
    static void closed(ConnectionGuard guard, Object socket) {
        if (guard != null) {
            guard.closed(socket);
        }
    }

    /**
     * What a connection is doing, as its processor last left it: serving (a request being read or answered, or
     * parked mid-head), or idle since a time (waiting for a request, having sent nothing or only blank lines).
     */
    static final class Activity {
        /** When the connection was last let go of between requests (nanoTime); {@link #SERVING} while it is not. */
        private volatile long idleSince;
        /** When its first blank line was read, if it has sent blank lines and no request line since; else -1. */
        private volatile long blankLinesSince = -1;
        /** When the guard first saw the connection (nanoTime): the oldest are closed first when busy. */
        private final long since = System.nanoTime();
        /** Its next answer closes it ({@code Connection: close}). */
        private volatile boolean closeAfterAnswer;
        /** How often the processor started on its bytes: twice or more, it is a kept-alive connection in use. */
        private volatile int served;

        private Activity(long idleSince) {
            this.idleSince = idleSince;
        }
    }

    private static final long SERVING = Long.MIN_VALUE;

    /** Called by the processor as it starts on a connection's bytes: the connection is not idle until let go of. */
    static Activity serving(ConnectionGuard guard, SocketWrapperBase<?> socket) {
        if (guard == null) {
            return null;
        }
        Activity a = guard.activity.computeIfAbsent(socket, s -> new Activity(SERVING));
        a.idleSince = SERVING;
        a.served++; // (one processor at a time per connection)
        SERVED.set(a);
        return a;
    }

    /**
     * Called by the processor when it is done with a connection's bytes for now: {@code idle} when it let go of the
     * connection between requests; {@code headStart}, when idle, is when its first blank line was read if it has
     * sent only blank lines since its last request, else -1.
     */
    static void letGo(Activity a, boolean idle, long headStart) {
        SERVED.remove();
        if (a == null) {
            return;
        }
        // Tomcat recycles the processor, and its start time, between blank lines: the first one's time is kept
        a.blankLinesSince = !idle || headStart == -1 ? -1 : a.blankLinesSince == -1 ? headStart : a.blankLinesSince;
        a.idleSince = idle ? System.nanoTime() : SERVING;
    }

    /**
     * Whether the connection the current thread is answering is to be closed after this answer (busy, and among the
     * oldest); false on any other thread.
     */
    public static boolean closeAfterThisAnswer() {
        Activity a = SERVED.get();
        return a != null && a.closeAfterAnswer;
    }

    private boolean admit(Object socket, InetAddress address) {
        InetAddress key = clientKey(address);
        AtomicInteger count = perAddress.computeIfAbsent(key, a -> new AtomicInteger());
        if (count.incrementAndGet() > maxPerAddress && maxPerAddress > 0 && !unlimited.test(address)) {
            count.decrementAndGet();
            refused.increment();
            return false;
        }
        peers.put(socket, key);
        return true;
    }

    /** What the per-address limit counts: an IPv4 address, or an IPv6 address's first {@code ipv6PrefixLength} bits. */
    InetAddress clientKey(InetAddress address) {
        if (!(address instanceof java.net.Inet6Address) || ipv6PrefixLength == 128) {
            return address;
        }
        byte[] bytes = address.getAddress();
        for (int bit = ipv6PrefixLength; bit < 128; bit++) {
            bytes[bit / 8] &= (byte) ~(0x80 >>> (bit % 8));
        }
        try {
            return InetAddress.getByAddress(bytes);
        } catch (java.net.UnknownHostException impossible) { // 16 bytes are always an address
            throw new IllegalStateException(impossible);
        }
    }

    private void closed(Object socket) {
        InetAddress address = peers.remove(socket); // its key
        if (address != null) {
            perAddress.computeIfPresent(address, (a, n) -> n.decrementAndGet() <= 0 ? null : n);
        }
    }

    private <S> void sweep(AbstractEndpoint<S, ?> endpoint) {
        try {
            long now = System.nanoTime();
            int max = endpoint.getMaxConnections();
            long open = endpoint.getConnectionCount();
            boolean busy = busyPercent > 0 && max > 0 && open * 100 >= (long) max * busyPercent;
            if (busy) {
                closeOldestAfterAnswer(endpoint, open - ((long) max * busyPercent / 100 - max / 20));
            }
            for (SocketWrapperBase<S> wrapper : endpoint.getConnections()) {
                // a processor stays with its socket while a head is incomplete; an idle socket has none, and only
                // its blank lines, if it sent some, tell when its head began
                Object processor = wrapper.getCurrentProcessor();
                Activity a = activity.get(wrapper);
                long blankSince = processor == null && a != null ? a.blankLinesSince : -1;
                if (processor instanceof AbstractProcessor p && !p.isAsync() && !p.isUpgrade()
                        && headOverdue(p.getRequest(), now)
                        || blankSince != -1 && now - blankSince > headTimeoutNanos) {
                    close(endpoint, wrapper, overdue);
                } else if (busy && idleTooLong(wrapper, a, blankSince, now)) {
                    close(endpoint, wrapper, idleWhenBusy);
                }
            }
        } catch (RuntimeException e) {
            log.warn("connection sweep failed", e); // the next sweep tries again
        }
    }

    /**
     * Marks the oldest connections from limited addresses that keep sending requests (served at least twice: kept
     * alive and used again) to be closed after their next answer, so that {@code excess} are marked (those marked
     * before and still open count). A connection that asked once and went idle is left to the busy idle timeout.
     */
    private <S> void closeOldestAfterAnswer(AbstractEndpoint<S, ?> endpoint, long excess) {
        java.util.List<Activity> candidates = new java.util.ArrayList<>();
        for (SocketWrapperBase<S> wrapper : endpoint.getConnections()) {
            Activity a = activity.get(wrapper);
            if (a == null) {
                continue;
            }
            if (a.closeAfterAnswer) {
                excess--;
                continue;
            }
            InetAddress peer = wrapper.getRemoteAddr() == null ? null : literal(wrapper.getRemoteAddr());
            if (peer != null && a.served >= 2 && !unlimited.test(peer)) {
                candidates.add(a);
            }
        }
        if (excess <= 0) {
            return;
        }
        candidates.sort(java.util.Comparator.comparingLong(a -> a.since));
        for (int i = 0; i < excess && i < candidates.size(); i++) {
            candidates.get(i).closeAfterAnswer = true;
            busyKeepAlive.increment();
        }
    }

    /** An address literal as Tomcat reports it, looked up nowhere. */
    private static InetAddress literal(String address) {
        try {
            return InetAddress.getByName(address); // a literal: nothing is looked up
        } catch (java.net.UnknownHostException notALiteral) {
            return null;
        }
    }

    /**
     * Whether a connection has been idle longer than the busy idle timeout: since its last answer, since its first
     * blank line if it sent only blank lines since, or, one the processor has not seen yet, since this sweep first
     * found it so.
     */
    private boolean idleTooLong(SocketWrapperBase<?> wrapper, Activity a, long blankSince, long now) {
        if (a == null) {
            activity.putIfAbsent(wrapper, new Activity(now));
            if (wrapper.isClosed()) { // closed since the endpoint listed it: not to be kept
                activity.remove(wrapper);
            }
            return false;
        }
        long since = a.idleSince;
        if (since == SERVING) {
            return false;
        }
        long idleFrom = blankSince != -1 ? Math.min(since, blankSince) : since;
        return now - idleFrom > busyIdleNanos;
    }

    /** Closes through Tomcat's own error path: serialised with any worker on the socket, which it then closes. */
    private <S> void close(AbstractEndpoint<S, ?> endpoint, SocketWrapperBase<S> wrapper, Counter reason) {
        // not again by the next sweep while the close waits for a worker (nor kept for a socket already gone)
        activity.computeIfPresent(wrapper, (w, last) -> new Activity(SERVING));
        reason.increment(); // counted first: the close may be done, and its place taken, before this thread goes on
        endpoint.processSocket(wrapper, SocketEvent.ERROR, true);
    }

    /** A head begun (its first byte read) but not finished: parsing, or parked (ENDED) until more bytes come. */
    private boolean headOverdue(Request request, long now) {
        long start = request.getStartTimeNanos();
        int stage = request.getRequestProcessor().getStage();
        return (stage == Constants.STAGE_PARSE || stage == Constants.STAGE_ENDED) && start != -1
                && now - start > headTimeoutNanos;
    }

    @Override
    public void close() {
        sweeper.shutdownNow();
    }

    /**
     * Tomcat's map of open connections, which each socket leaves when Tomcat closes it: the one place every close
     * passes, so the per-address counts follow it.
     */
    static final class Connections<U, S> extends ConcurrentHashMap<U, SocketWrapperBase<S>> {
        private final transient ConnectionGuardHolder holder;

        Connections(ConnectionGuardHolder holder) {
            this.holder = holder;
        }

        @Override
        public SocketWrapperBase<S> remove(Object key) {
            SocketWrapperBase<S> removed = super.remove(key);
            closed(holder.guard(), key);
            if (removed != null && holder.guard() != null) {
                holder.guard().activity.remove(removed);
            }
            return removed;
        }
    }

    /** The guard an endpoint reports to; set once the connector is customised, before it accepts. */
    interface ConnectionGuardHolder {
        ConnectionGuard guard();
    }
}
