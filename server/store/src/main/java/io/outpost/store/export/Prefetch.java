package io.outpost.store.export;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Downloads folder copies one ahead of their use, in order: the service writes and sends the next folder while the
 * loader moves the current one into the snapshot, so the two halves of an HTTP export run side by side. At most
 * two copies are on disk at once; closing waits for a download still running and removes its files.
 */
final class Prefetch implements AutoCloseable {

    /** One folder part to download; {@code ifNoneMatch}: the validator of the copy the snapshot holds, or null. */
    record Job(FolderExport.Part part, String globalTag, long from, long to, String path, String ifNoneMatch) {
    }

    /** A downloaded part in its own temporary folder ({@code copy} null: not modified); closing removes it. */
    record Download(Job job, Path dir, RemoteSource.Copy copy) implements AutoCloseable {
        @Override
        public void close() {
            RemoteSnapshots.deleteTree(dir);
        }
    }

    private final RemoteSource source;
    private final List<Job> jobs;
    private final ExecutorService worker = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "snapshot-download");
        t.setDaemon(true);
        return t;
    });
    private int next;
    private CompletableFuture<Download> ahead;

    Prefetch(RemoteSource source, List<Job> jobs) {
        this.source = source;
        this.jobs = jobs;
        ahead = start();
    }

    /** Downloads one part now, on the calling thread. */
    static Download download(RemoteSource source, Job job) {
        Path dir = RemoteSnapshots.tempDir();
        try {
            return new Download(job, dir, source.fetch(job.part(), job.globalTag(), job.from(), job.to(), job.path(),
                    job.ifNoneMatch(), dir.resolve("folder.db")));
        } catch (RuntimeException e) {
            RemoteSnapshots.deleteTree(dir);
            throw e;
        }
    }

    /** The next job's download (waiting for it if needed); the one after it starts at once. */
    Download next() {
        CompletableFuture<Download> current = ahead;
        ahead = start();
        try {
            return current.join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : e;
        }
    }

    private CompletableFuture<Download> start() {
        if (next >= jobs.size()) {
            return null;
        }
        Job job = jobs.get(next++);
        return CompletableFuture.supplyAsync(() -> download(source, job), worker);
    }

    @Override
    public void close() {
        try {
            if (ahead != null) {
                ahead.handle((d, e) -> {
                    if (d != null) {
                        d.close();
                    }
                    return null;
                }).join();
            }
        } finally {
            worker.shutdownNow();
        }
    }
}
