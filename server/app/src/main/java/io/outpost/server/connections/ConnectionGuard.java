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
 * The two connection limits Tomcat lacks (docs/operations.md, "Limits and exposure"):
 * <ul>
 * <li>connections per client address: one host holding {@code max-connections} idle sockets would lock every other
 * client out, so a connection beyond {@code maxPerAddress} from one address is closed as soon as it is accepted
 * (trusted proxies, the site Squids, and the host itself are not limited);</li>
 * <li>a deadline for a request's head from its first byte: Tomcat's {@code connection-timeout} bounds each pause
 * between bytes, so a client sending a header byte every few seconds would hold its connection for ever. Blank
 * lines before a request line count as its first bytes ({@link GuardedHttp11Processor}).</li>
 * </ul>
 * The endpoint of {@link GuardedNio2Protocol} reports each accepted and each closed socket here; a sweep closes heads over their deadline through Tomcat's own error path.
 */
public final class ConnectionGuard implements AutoCloseable {
    private static final Log log = LogFactory.getLog(ConnectionGuard.class);

    private final int maxPerAddress;
    private final long headTimeoutNanos;
    private final Predicate<InetAddress> unlimited;
    private final Map<Object, InetAddress> peers = new ConcurrentHashMap<>();
    private final Map<InetAddress, AtomicInteger> perAddress = new ConcurrentHashMap<>();
    /** Connections Tomcat let go of having read only blank lines: when it read the first of them (nanoTime). */
    private final Map<SocketWrapperBase<?>, Long> blankLinesSince = new ConcurrentHashMap<>();
    private final ScheduledExecutorService sweeper;
    private final Counter refused;
    private final Counter overdue;

    /**
     * @param maxPerAddress connections one client address may hold at once; 0 or less: no limit
     * @param headTimeout   longest time from a request's first byte to the end of its headers
     * @param unlimited     addresses exempt from the per-address limit (trusted proxies, the host itself)
     * @param registry      where the refusals and closed heads are counted ({@code outpost.connections.closed})
     */
    public ConnectionGuard(int maxPerAddress, Duration headTimeout, Predicate<InetAddress> unlimited,
                           MeterRegistry registry) {
        if (headTimeout.isNegative() || headTimeout.isZero()) {
            throw new IllegalArgumentException("outpost.http.request-head-timeout must be positive, not " + headTimeout);
        }
        this.maxPerAddress = maxPerAddress;
        this.headTimeoutNanos = headTimeout.toNanos();
        this.unlimited = unlimited;
        this.refused = Counter.builder("outpost.connections.closed").tag("reason", "per-address-limit")
                .description("connections closed unanswered by Outpost's connection limits").register(registry);
        this.overdue = Counter.builder("outpost.connections.closed").tag("reason", "request-head-timeout")
                .description("connections closed unanswered by Outpost's connection limits").register(registry);
        this.sweeper = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon()
                .name("outpost-head-deadline").factory());
    }

    /** Starts the deadline sweep over the endpoint's connections: four times per deadline, at most every second. */
    void watch(AbstractEndpoint<?, ?> endpoint) {
        long period = Math.clamp(headTimeoutNanos / 4, 10_000_000L, 1_000_000_000L);
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
     * Called by the processor after each read of a connection: {@code since} is when its first blank line was read
     * if it has sent blank lines and no request line, else -1 (a request line begun or a request finished).
     */
    static void blankLinesRead(ConnectionGuard guard, SocketWrapperBase<?> socket, long since) {
        if (guard == null) {
            return;
        }
        if (since == -1) {
            guard.blankLinesSince.remove(socket);
        } else {
            guard.blankLinesSince.putIfAbsent(socket, since);
        }
    }

    private boolean admit(Object socket, InetAddress address) {
        AtomicInteger count = perAddress.computeIfAbsent(address, a -> new AtomicInteger());
        if (count.incrementAndGet() > maxPerAddress && maxPerAddress > 0 && !unlimited.test(address)) {
            count.decrementAndGet();
            refused.increment();
            return false;
        }
        peers.put(socket, address);
        return true;
    }

    private void closed(Object socket) {
        InetAddress address = peers.remove(socket);
        if (address != null) {
            perAddress.computeIfPresent(address, (a, n) -> n.decrementAndGet() <= 0 ? null : n);
        }
    }

    private <S> void sweep(AbstractEndpoint<S, ?> endpoint) {
        try {
            long now = System.nanoTime();
            for (SocketWrapperBase<S> wrapper : endpoint.getConnections()) {
                // a processor stays with its socket while a head is incomplete; an idle socket has none, and only
                // its blank lines, if it sent some, tell when its head began
                Object processor = wrapper.getCurrentProcessor();
                Long blankSince = processor == null ? blankLinesSince.get(wrapper) : null;
                if (processor instanceof AbstractProcessor p && !p.isAsync() && !p.isUpgrade()
                        && headOverdue(p.getRequest(), now)
                        || blankSince != null && now - blankSince > headTimeoutNanos) {
                    // Tomcat's own error path: serialised with any worker on the socket, which it then closes
                    endpoint.processSocket(wrapper, SocketEvent.ERROR, true);
                    overdue.increment();
                }
            }
        } catch (RuntimeException e) {
            log.warn("connection deadline sweep failed", e); // the next sweep tries again
        }
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
                holder.guard().blankLinesSince.remove(removed);
            }
            return removed;
        }
    }

    /** The guard an endpoint reports to; set once the connector is customised, before it accepts. */
    interface ConnectionGuardHolder {
        ConnectionGuard guard();
    }
}
