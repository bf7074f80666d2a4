package io.outpost.server.web;

import io.outpost.store.StoreException;

/** The one mapping of a store failure to an HTTP status, shared by the read, pinned and write APIs. */
public final class StoreStatus {
    private StoreStatus() {
    }

    public static int of(StoreException e) {
        return switch (e.kind().category()) {
            case NOT_FOUND -> 404;
            case BAD_INPUT -> 400;
            case CONFLICT -> 409;
            case UNAVAILABLE -> 503;
        };
    }
}
