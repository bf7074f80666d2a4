package io.outpost.server.web;

import io.outpost.store.IovStore;
import io.outpost.store.StoreException;
import io.outpost.store.export.FolderExport;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.Semaphore;
import java.util.stream.Stream;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /export/v1/{folder|channels}/{globaltag}/{from}/{to}{folder}}: one folder of an offline snapshot as a
 * SQLite file, for the loader's {@code export --server} and {@code sync --from URL} (docs/api.md). The native API
 * answers reads; a snapshot needs the stored rows themselves (object ids, hidden rows' links, the IOV sequence, tag
 * and node ids) so that it answers exactly as the source, which is what this endpoint carries. Read-only; the copy
 * is written to a temporary file and streamed, so memory does not depend on the folder's size. Each copy costs a
 * full read of the folder and a temporary file, and anyone may ask: at most {@code outpost.export.max-concurrent}
 * copies are made at once (more get 503 with Retry-After), and 0 turns the endpoint off.
 */
@RestController
public class SnapshotExportController {
    static final String CONTENT_TYPE = "application/vnd.sqlite3";

    private final IovStore store;
    private final int maxConcurrent;
    private final Semaphore slots;

    public SnapshotExportController(IovStore store, ExportProperties props) {
        this.store = store;
        this.maxConcurrent = props.maxConcurrent();
        this.slots = new Semaphore(maxConcurrent);
    }

    @GetMapping("/export/v1/{part}/{globalTag}/{from}/{to}/**")
    public void export(@PathVariable String part, @PathVariable String globalTag, @PathVariable String from,
                       @PathVariable String to, HttpServletRequest req, HttpServletResponse resp) throws IOException {
        String uri = req.getRequestURI().substring(req.getContextPath().length());
        // the folder path is what follows /export/v1/{part}/{globaltag}/{from}/{to}, taken from the raw path
        int at = 0;
        for (int i = 0; i < 6 && at >= 0; i++) {
            at = uri.indexOf('/', at + 1);
        }
        String folder = at < 0 ? "/" : uri.substring(at);
        if (maxConcurrent == 0) {
            Problems.write(resp, 404, "Not Found", "snapshot export is turned off on this service"
                    + " (outpost.export.max-concurrent=0)", uri, "no-store");
            return;
        }
        if (!slots.tryAcquire()) {
            resp.setHeader("Retry-After", "5");
            Problems.write(resp, 503, "Service Unavailable", maxConcurrent + " snapshot exports are already being"
                    + " made; try again shortly", uri, "no-store");
            return;
        }
        Path dir = null;
        try {
            FolderExport.Part what = FolderExport.Part.parse(part);
            long k1 = key(from);
            long k2 = key(to);
            FolderExport export = new FolderExport(store);
            String held = req.getHeader("If-None-Match");
            if (held != null && held.equals(export.currentEtag(folder, globalTag))) {
                resp.setStatus(HttpServletResponse.SC_NOT_MODIFIED);
                resp.setHeader("ETag", held);
                resp.setHeader("Cache-Control", "no-store");
                return;
            }
            dir = Files.createTempDirectory("outpost-export-");
            Path file = dir.resolve("folder.db");
            String etag = export.write(folder, globalTag, k1, k2, what, file);
            resp.setStatus(HttpServletResponse.SC_OK);
            resp.setContentType(CONTENT_TYPE);
            resp.setContentLengthLong(Files.size(file));
            resp.setHeader("ETag", etag);
            resp.setHeader("Cache-Control", "no-store");
            resp.setHeader("X-Outpost-Table-Prefix", store.database().prefix());
            Files.copy(file, resp.getOutputStream());
        } catch (StoreException e) {
            int status = StoreStatus.of(e);
            Problems.write(resp, status, status == 404 ? "Not Found" : status == 400 ? "Bad Request" : "Error",
                    InternalErrors.clientText(e, uri), uri, "no-store");
        } finally {
            slots.release();
            if (dir != null) {
                deleteTree(dir);
            }
        }
    }

    private static long key(String s) {
        try {
            long k = Long.parseLong(s);
            if (k >= 0 && s.equals(Long.toString(k))) {
                return k;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new StoreException(StoreException.Kind.INVALID_KEY, "key '" + (s.length() > 64 ? s.substring(0, 64)
                + "…" : s) + "' is not a key: " + io.outpost.store.model.KeyText.urlForms(s));
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
