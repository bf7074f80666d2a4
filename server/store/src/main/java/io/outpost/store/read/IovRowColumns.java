package io.outpost.store.read;

/**
 * The columns of COOL's IOV row beside those of {@link io.outpost.store.model.Iov} (object id, channel, interval,
 * insertion time, payload), as the database holds them: for a standard tag those of its object's row in
 * {@code _IOVS}. {@code lastModDate} is null where the column is NULL.
 */
public record IovRowColumns(long userTagId, String lastModDate, long originalId, long newHeadId) {
}
