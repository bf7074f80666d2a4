package io.outpost.server.write;

/**
 * What a token may do, as OAuth2 scopes in the style of WLCG storage scopes: {@code conditions.write:/DET/Calo}
 * allows creating nodes, channels, IOVs and tags under {@code /DET/Calo}; a scope without a path means {@code /}.
 */
public enum Permission {
    /** Create foldersets, folders and channels, store IOVs, tag the HEAD, relate tags below a path. */
    WRITE("conditions.write"),
    /** Lock and unlock tags of nodes below a path. */
    LOCK("conditions.lock"),
    /** Create, relate and lock global tags (tags of the root folderset {@code /}). */
    GLOBAL_TAG("conditions.globaltag"),
    /** Read the audit log. */
    AUDIT("conditions.audit");

    private final String scope;

    Permission(String scope) {
        this.scope = scope;
    }

    public String scope() {
        return scope;
    }
}
