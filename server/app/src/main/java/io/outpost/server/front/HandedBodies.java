package io.outpost.server.front;

import io.outpost.frontier.BodyHandoff;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Response bodies Tomcat's servlets left for the HTTP front ({@link BodyHandoff}): put here on a request thread,
 * taken by the event loop that reads the (empty) response, and sent from there. The bytes then cross one socket
 * instead of two. Bounded in bytes: beyond {@code maxBytes} waiting, bodies are written the usual way. A body
 * nobody takes (its client left before the response reached the front) is dropped by {@link #dropOlderThan}.
 */
public final class HandedBodies implements BodyHandoff {
    /** A body waiting for the front. */
    record Body(ByteBuffer[] parts, long length, long since) {
    }

    private final ConcurrentHashMap<String, Body> waiting = new ConcurrentHashMap<>();
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicLong sequence = new AtomicLong();
    private final String prefix;
    private final long maxBytes;

    public HandedBodies(long maxBytes) {
        byte[] random = new byte[6];
        new SecureRandom().nextBytes(random);
        this.prefix = HexFormat.of().formatHex(random) + "-";
        this.maxBytes = maxBytes;
    }

    @Override
    public String offer(ByteBuffer... parts) {
        long length = 0;
        for (ByteBuffer p : parts) {
            length += p.remaining();
        }
        if (bytes.addAndGet(length) > maxBytes) {
            bytes.addAndGet(-length);
            return null;
        }
        String token = prefix + sequence.incrementAndGet();
        waiting.put(token, new Body(parts, length, System.nanoTime()));
        return token;
    }

    /** The body left under {@code token}, now the caller's; null if there is none (dropped, or never left). */
    Body take(String token) {
        Body b = waiting.remove(token);
        if (b != null) {
            bytes.addAndGet(-b.length());
        }
        return b;
    }

    /** Drops bodies left longer ago than {@code nanos}: their clients are gone. */
    void dropOlderThan(long nanos) {
        long now = System.nanoTime();
        waiting.forEach((token, b) -> {
            if (now - b.since() > nanos && waiting.remove(token, b)) {
                bytes.addAndGet(-b.length());
            }
        });
    }

    /** Bytes waiting now. */
    long waitingBytes() {
        return bytes.get();
    }
}
