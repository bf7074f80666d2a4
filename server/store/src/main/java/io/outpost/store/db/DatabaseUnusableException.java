package io.outpost.store.db;

/**
 * The configured database cannot be used: unreachable, refused the login, or a server version Outpost does not
 * support. The message names the URL, the user and the reason; the service reports it as its start failure.
 */
public final class DatabaseUnusableException extends IllegalStateException {
    public DatabaseUnusableException(String message, Throwable cause) {
        super(message, cause);
    }
}
