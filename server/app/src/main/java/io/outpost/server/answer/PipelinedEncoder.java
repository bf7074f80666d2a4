package io.outpost.server.answer;

import io.outpost.wire.TableEncoder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;

/**
 * Encodes rows on another thread while the caller keeps reading them from the database, so that serialising and
 * compressing a large answer overlaps the query instead of following it. Rows are handed over in batches through
 * a bounded queue (the reader waits when the encoder falls behind: memory stays bounded).
 */
public final class PipelinedEncoder {
    private static final int BATCH = 1024;
    private static final List<Object[]> END = List.of();

    private final BlockingQueue<List<Object[]>> queue = new ArrayBlockingQueue<>(16);
    private final CompletableFuture<byte[]> done;
    private List<Object[]> batch = new ArrayList<>(BATCH);

    public PipelinedEncoder(TableEncoder encoder, Executor executor) {
        done = CompletableFuture.supplyAsync(() -> {
            try {
                for (List<Object[]> b = queue.take(); b != END; b = queue.take()) {
                    b.forEach(encoder::row);
                }
                return encoder.finish();
            } catch (InterruptedException e) {
                encoder.abandon();
                Thread.currentThread().interrupt();
                throw new IllegalStateException("encoder interrupted", e);
            } catch (RuntimeException | Error e) {
                encoder.abandon();
                throw e;
            }
        }, executor);
    }

    public void row(Object[] values) {
        batch.add(values);
        if (batch.size() == BATCH) {
            put(batch);
            batch = new ArrayList<>(BATCH);
        }
    }

    /** Waits for the encoder and returns the finished answer. */
    public byte[] finish() {
        if (!batch.isEmpty()) {
            put(batch);
        }
        put(END);
        try {
            return done.get();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while encoding", e);
        }
    }

    /** Stops the encoder after a failed read. */
    public void abandon() {
        done.cancel(true);
        queue.clear();
        queue.offer(END);
    }

    private void put(List<Object[]> b) {
        try {
            while (!queue.offer(b, 100, java.util.concurrent.TimeUnit.MILLISECONDS)) {
                if (done.isDone()) {
                    done.join();
                    throw new IllegalStateException("the encoder stopped early");
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while encoding", e);
        }
    }
}
