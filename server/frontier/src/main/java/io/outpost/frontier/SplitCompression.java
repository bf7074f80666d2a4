package io.outpost.frontier;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;

/**
 * A held answer compressed by libdeflate in a few pieces at once once its rows are all read, the last on the
 * caller's thread, the others on an executor, joined into one zlib stream ({@link ZlibPieces}). Unlike pieces
 * compressed while rows are read, this runs when the database and the reader no longer need the cores, so with
 * one answer under way it takes about 1/n of the whole-answer time (plus a walk of each joined piece, 1.8 ms per
 * MB).
 */
final class SplitCompression {
    /** Smallest piece worth its hand-off and walk. */
    static final int MIN_PIECE = 128 << 10;

    private SplitCompression() {
    }

    /** How many pieces {@code len} record bytes are cut into with {@code cores} cores free: 1 means whole. */
    static int pieces(int len, int cores) {
        return Math.max(1, Math.min(cores, len / MIN_PIECE));
    }

    /**
     * The zlib stream of {@code in[0, len)} in {@code n} parts: header, pieces, Adler-32, in order.
     *
     * @throws RuntimeException if libdeflate failed for any piece (nothing was written anywhere)
     */
    static List<byte[]> compress(NativeDeflate lib, byte[] in, int len, int level, int n, Executor executor) {
        int size = len / n;
        List<CompletableFuture<NativeDeflate.Piece>> others = new ArrayList<>(n - 1);
        for (int i = 0; i < n - 1; i++) {
            int off = i * size;
            others.add(CompletableFuture.supplyAsync(() -> ZlibPieces.piece(lib, in, off, size, level, false),
                    executor));
        }
        List<byte[]> out = new ArrayList<>(n + 2);
        out.add(ZlibPieces.header(level));
        NativeDeflate.Piece last;
        try {
            last = ZlibPieces.piece(lib, in, (n - 1) * size, len - (n - 1) * size, level, true);
        } finally {
            // the buffer is handed back to the caller only once no piece reads it any more
            CompletableFuture.allOf(others.toArray(CompletableFuture[]::new)).exceptionally(e -> null).join();
        }
        long adler = 1;
        for (CompletableFuture<NativeDeflate.Piece> piece : others) {
            try {
                NativeDeflate.Piece p = piece.join();
                out.add(p.deflate());
                adler = ZlibPieces.combineAdler(adler, p.adler32(), size);
            } catch (CompletionException e) {
                throw e.getCause() instanceof RuntimeException r ? r : e;
            }
        }
        out.add(last.deflate());
        out.add(ZlibPieces.trailer(ZlibPieces.combineAdler(adler, last.adler32(), len - (n - 1) * size)));
        return out;
    }
}
