package io.outpost.server.cache;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.outpost.server.config.OutpostProperties;
import io.outpost.store.IovStore;
import io.outpost.store.db.SysTime;
import io.outpost.store.model.Node;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * The service's memory of the folder tree and of each folder's modification generation (its IOV sequence
 * row, which every write updates). Polled at {@code outpost.poll-interval}, so writes by other tools are
 * noticed; {@link #refresh()} can be called after an in-process write to notice it at once. ETags,
 * Last-Modified and 304 answers come from here without touching the database.
 */
@Component
public class Catalog implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Catalog.class);

    /** One node and its generation. */
    public record Entry(Node node, String generation, Instant lastModified) {
    }

    private final IovStore store;
    private final ScheduledExecutorService poller;
    private volatile Map<String, Entry> byPath = Map.of();
    private volatile String catalogGeneration = "";
    private volatile Instant catalogModified = Instant.EPOCH;
    private volatile long lastRefreshNanos;
    /** Called when a refresh sees a change, before the new state is published (e.g. a snapshot's coverage reload). */
    private final List<Runnable> changeListeners = new java.util.concurrent.CopyOnWriteArrayList<>();

    public Catalog(IovStore store, OutpostProperties props, MeterRegistry registry) {
        this.store = store;
        refresh();
        // how old the service's view of the database is: poll-interval while polls succeed, growing while they fail
        Gauge.builder("outpost.catalog.age", this, c -> (System.nanoTime() - c.lastRefreshNanos) / 1e9)
                .baseUnit("seconds").description("time since the folder generations were last read from the database")
                .register(registry);
        poller = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "outpost-catalog-poller");
            t.setDaemon(true);
            return t;
        });
        long ms = Math.max(100, props.pollInterval().toMillis());
        poller.scheduleWithFixedDelay(this::refreshQuietly, ms, ms, TimeUnit.MILLISECONDS);
    }

    private void refreshQuietly() {
        try {
            refresh();
        } catch (RuntimeException e) {
            log.warn("catalog refresh failed, keeping the previous state: {}", e.getMessage());
        }
    }

    /** Re-reads the folder tree and every folder's generation. */
    public synchronized void refresh() {
        List<Node> nodes = store.listNodes();
        Map<String, String> stamps = store.modificationStamps(nodes.stream().filter(Node::isFolder).toList());
        Map<String, Entry> next = new HashMap<>();
        StringBuilder all = new StringBuilder();
        Instant newest = Instant.EPOCH;
        for (Node n : nodes) {
            String gen = n.isFolder() ? stamps.get(n.path()) : n.lastModified();
            Instant modified = parse(gen.contains("@") ? gen.substring(gen.indexOf('@') + 1) : gen);
            next.put(n.path(), new Entry(n, gen, modified));
            all.append(n.id()).append(':').append(gen).append(';');
            if (modified.isAfter(newest)) {
                newest = modified;
            }
        }
        String generation = Integer.toHexString(all.toString().hashCode()) + "-" + nodes.size();
        if (!generation.equals(catalogGeneration) && !catalogGeneration.isEmpty()) {
            // a sync of a served snapshot shows here as new folders or generations: what it covers may have changed
            store.reloadSnapshotCoverage();
            changeListeners.forEach(Runnable::run);
        }
        byPath = next;
        catalogGeneration = generation;
        catalogModified = newest;
        lastRefreshNanos = System.nanoTime();
    }

    /** Runs {@code listener} whenever a refresh finds that a node, folder or tag changed. */
    public void onChange(Runnable listener) {
        changeListeners.add(listener);
    }

    /** Refreshes at once unless a refresh happened within the last second (for names not seen yet). */
    public void refreshIfOlderThanASecond() {
        if (System.nanoTime() - lastRefreshNanos > 1_000_000_000L) {
            refreshQuietly();
        }
    }

    private static Instant parse(String sysTime) {
        try {
            return SysTime.parse(sysTime);
        } catch (RuntimeException e) {
            return Instant.EPOCH;
        }
    }

    public Entry find(String path) {
        return byPath.get(path);
    }

    /** Generation of everything: changes when any node, folder or tag changes. */
    public String catalogGeneration() {
        return catalogGeneration;
    }

    public Instant catalogModified() {
        return catalogModified;
    }

    @Override
    public void close() {
        poller.shutdownNow();
    }
}
