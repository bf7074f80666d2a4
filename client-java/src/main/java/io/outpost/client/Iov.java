package io.outpost.client;

/**
 * One interval of validity: a channel, the keys {@code [since, until)} and the folder's payload fields, typed by
 * column type ({@link Row#get(String)}).
 */
public record Iov(long channel, long since, long until, Row payload) {

    /** True if this IOV is valid at key {@code t}: {@code since <= t < until}. */
    public boolean isValidAt(long t) {
        return since <= t && t < until;
    }

    /** A payload field by name. */
    public Object get(String field) {
        return payload.get(field);
    }
}
