package io.outpost.client;

/** A folder or folderset (one row of a {@code nodes} answer). versioning is null for foldersets. */
public record NodeInfo(String path, boolean folder, String versioning, String keyType, String payloadSpec,
                       String description) {

    /** True for folders keyed by {@code (run << 32) | lumiblock} rather than by time in ns. */
    public boolean isRunLumi() {
        return "run-lumi".equals(keyType);
    }

    static NodeInfo of(Row r) {
        return new NodeInfo(r.getString("path"), Boolean.TRUE.equals(r.getBoolean("folder")),
                r.getString("versioning"), r.getString("keyType"), r.getString("payloadSpec"),
                r.getString("description"));
    }
}
