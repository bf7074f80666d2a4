package io.outpost.frontier;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A held answer compressed in pieces by several threads at once once its rows are all read, joined into one zlib
 * stream ({@link ZlibPieces}). Unlike pieces compressed while rows are read, this runs when the database and the
 * reader no longer need the cores.
 *
 * <p>The caller and {@code n - 1} helpers on the executor take pieces from a shared count until none is left, so a
 * helper that starts late (waking a parked thread took 0.1-0.4 ms on the 2-core test machine) simply compresses
 * fewer. With a library whose pieces join at no cost (igzip), the answer is cut into four pieces per thread for that
 * reason; libdeflate's pieces each need their end found ({@link DeflateBlocks}), so there it is one per thread.
 */
final class SplitCompression {
    /** Smallest piece worth its hand-off. */
    static final int MIN_PIECE = 128 << 10;
    /** Pieces per thread when pieces join for free. */
    static final int PIECES_PER_THREAD = 4;

    private SplitCompression() {
    }

    /** How many threads compress {@code len} record bytes with {@code cores} cores free: 1 means whole. */
    static int pieces(int len, int cores) {
        return Math.max(1, Math.min(cores, len / MIN_PIECE));
    }

    /**
     * The zlib stream of {@code in[0, len)} compressed by {@code n} threads (this one and {@code n - 1} on
     * {@code executor}), in parts: header, pieces, Adler-32, in order. Returns once no thread reads {@code in} any
     * more.
     *
     * @throws RuntimeException if the library failed for any piece (nothing was written anywhere)
     */
    static List<byte[]> compress(NativeDeflate lib, byte[] in, int len, int level, int n, Executor executor) {
        int k = lib.joinsFree() ? Math.max(n, Math.min(n * PIECES_PER_THREAD, len / (MIN_PIECE / 4))) : n;
        int size = len / k;
        NativeDeflate.Piece[] done = new NativeDeflate.Piece[k];
        RuntimeException[] failed = new RuntimeException[1];
        AtomicInteger next = new AtomicInteger();
        CountDownLatch finished = new CountDownLatch(k);
        Runnable work = () -> {
            for (int i; (i = next.getAndIncrement()) < k; finished.countDown()) {
                int off = i * size;
                try {
                    done[i] = lib.piece(in, off, i == k - 1 ? len - off : size, level, i == k - 1);
                } catch (RuntimeException e) {
                    failed[0] = e;
                }
            }
        };
        for (int t = 1; t < n; t++) {
            executor.execute(work);
        }
        work.run();
        try {
            finished.await(); // every piece taken is done: a helper starting now finds none left and reads nothing
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while pieces were compressed", e);
        }
        if (failed[0] != null) {
            throw failed[0];
        }
        List<byte[]> out = new ArrayList<>(k + 2);
        out.add(ZlibPieces.header(level));
        long adler = 1;
        for (int i = 0; i < k; i++) {
            out.add(done[i].deflate());
            adler = ZlibPieces.combineAdler(adler, done[i].adler32(), i == k - 1 ? len - i * size : size);
        }
        out.add(ZlibPieces.trailer(adler));
        return out;
    }
}
