package io.outpost.client;

/** How hard a request asks caches on the way to revalidate (Frontier's soft and hard refresh). */
public enum Refresh {
    /** An ordinary request: any fresh cached copy will do. */
    NONE(null),
    /** {@code Cache-Control: max-age=0}: a cache must revalidate its copy with the server. */
    SOFT("max-age=0"),
    /** {@code Cache-Control: no-cache}: a cache must fetch a new copy from the server. */
    HARD("no-cache");

    private final String cacheControl;

    Refresh(String cacheControl) {
        this.cacheControl = cacheControl;
    }

    /** The request's Cache-Control header value, or null for none. */
    public String cacheControl() {
        return cacheControl;
    }
}
