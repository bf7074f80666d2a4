package io.outpost.store.model;

/**
 * One stored object: its channel, validity [since, until), object id, insertion time (COOL's GMT string) and
 * payload values in the order of the folder's {@link PayloadSpec}.
 */
public record Iov(long channelId, long since, long until, long objectId, String insertionTime, Object[] payload) {

    public boolean isOpenEnded() {
        return until == ValidityKey.MAX;
    }
}
