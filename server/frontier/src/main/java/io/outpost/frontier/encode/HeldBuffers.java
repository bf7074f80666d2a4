package io.outpost.frontier.encode;

import java.util.concurrent.ArrayBlockingQueue;

/**
 * Spare buffers for answers held whole ({@link BlobEncoder}). A fresh answer's buffer starts small and doubles: for
 * a 1 MB record stream that is 2 MB allocated and zeroed and 1 MB copied per answer, on memory not in any cache. A
 * buffer that has grown is handed back at close and taken by the next answer instead. At most a few are kept, so an
 * idle server holds little.
 */
final class HeldBuffers {
    /** Smaller buffers cost little to make again. */
    static final int MIN_KEPT = 256 << 10;
    private final ArrayBlockingQueue<byte[]> spare;

    HeldBuffers(int capacity) {
        this.spare = new ArrayBlockingQueue<>(capacity);
    }

    /** A spare buffer, or a new one of {@code startSize} bytes. Its content is garbage. */
    byte[] take(int startSize) {
        byte[] b = spare.poll();
        return b != null ? b : new byte[startSize];
    }

    /** Hands {@code b} back once nothing reads or writes it any more. */
    void give(byte[] b) {
        if (b != null && b.length >= MIN_KEPT) {
            spare.offer(b);
        }
    }

    int spares() {
        return spare.size();
    }
}
