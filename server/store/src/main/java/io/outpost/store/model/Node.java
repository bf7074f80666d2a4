package io.outpost.store.model;

/**
 * A node of the folder tree: a folderset (no IOVs) or a folder (leaf). For a folder, {@code tablePrefix} is the
 * prefix of its tables (e.g. {@code OUTPOST_F0003}) and the folder fields are set; for a folderset they are null.
 */
public record Node(long id, Long parentId, String name, String path, String description, boolean isLeaf,
                   Versioning versioning, KeyType keyType, PayloadSpec payloadSpec, String tablePrefix,
                   String lastModified) {

    public boolean isFolder() {
        return isLeaf;
    }

    public boolean isMultiVersion() {
        return versioning == Versioning.MULTI_VERSION;
    }

    public String iovTable() {
        return tablePrefix + "_IOVS";
    }

    public String channelTable() {
        return tablePrefix + "_CHANNELS";
    }

    public String iovSeqTable() {
        return tablePrefix + "_IOVS_SEQ";
    }

    public String iov2TagTable() {
        return tablePrefix + "_IOV2TAG";
    }
}
