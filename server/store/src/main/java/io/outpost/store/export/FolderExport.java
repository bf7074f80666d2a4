package io.outpost.store.export;

import io.outpost.store.IovStore;
import io.outpost.store.StoreException;
import io.outpost.store.db.DatabaseConfig;
import io.outpost.store.model.Node;
import io.outpost.store.read.TagResolver;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;

/**
 * One folder of an offline snapshot, written by the service into a new SQLite file for export and sync over HTTP
 * ({@code /export/v1/…}, docs/api.md): exactly the rows a JDBC export copies, with the folder's coverage row. Its
 * validator (ETag) names the folder's own tag and generation in the source, so a client holding a copy asks with
 * {@code If-None-Match} and gets the file only when the folder changed.
 */
public final class FolderExport {

    /** What to write: the whole folder, or everything but its IOV rows (a folder kept in a locked tag). */
    public enum Part {
        FOLDER, CHANNELS;

        public String urlName() {
            return name().toLowerCase(Locale.ROOT);
        }

        public static Part parse(String s) {
            for (Part p : values()) {
                if (p.urlName().equals(s)) {
                    return p;
                }
            }
            throw StoreException.badArgument("unknown export part '" + s + "': folder or channels");
        }
    }

    private final IovStore source;

    public FolderExport(IovStore source) {
        this.source = source;
    }

    /** The validator of a copy of a folder made in {@code folderTag} (null: HEAD) at {@code generation}. */
    public static String etag(String folderTag, String generation) {
        try {
            byte[] h = MessageDigest.getInstance("SHA-256").digest(((folderTag == null ? "" : folderTag) + "\n"
                    + generation).getBytes(StandardCharsets.UTF_8));
            return "\"" + HexFormat.of().formatHex(h, 0, 16) + "\"";
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The validator the folder's copy would carry if written now. */
    public String currentEtag(String folderPath, String globalTag) {
        FolderTransfer.SourceState s = state(folderPath, globalTag);
        return etag(s.folderTagName(), s.generation());
    }

    /**
     * Writes the folder into {@code file} (which must not exist) and returns the copy's validator. The file uses the
     * source's table prefix.
     */
    public String write(String folderPath, String globalTag, long from, long to, Part part, Path file) {
        SnapshotExporter.Request r = new SnapshotExporter.Request(globalTag, from, to, folderPath);
        FolderTransfer.SourceState s = state(folderPath, r.globalTag());
        try (IovStore target = IovStore.open(new DatabaseConfig("jdbc:sqlite:" + file, null, null,
                source.database().prefix(), 1, 1, null, null))) {
            new FolderTransfer(source, target.database()).transfer(s, r.globalTag(), from, to, folderPath, false,
                    part == Part.FOLDER, n -> { });
        }
        return etag(s.folderTagName(), s.generation());
    }

    private FolderTransfer.SourceState state(String folderPath, String globalTag) {
        if (!TagResolver.isHead(globalTag)) {
            source.tag(globalTag);
        }
        Node f = source.folder(folderPath);
        if (!f.isFolder()) {
            throw new StoreException(StoreException.Kind.FOLDER_NOT_FOUND, "'" + folderPath + "' is a folderset");
        }
        // FolderTransfer only needs the source here: the target is given when writing
        return new FolderTransfer(source, source.database()).state(f, TagResolver.isHead(globalTag) ? "HEAD" : globalTag);
    }
}
