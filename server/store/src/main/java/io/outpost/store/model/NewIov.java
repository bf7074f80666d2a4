package io.outpost.store.model;

/**
 * An object to store: channel, validity, payload values, and for multi-version folders an optional user tag
 * (null = HEAD only). With {@code userTagOnly} the object goes into the user tag but not into the HEAD.
 */
public record NewIov(long channelId, long since, long until, Object[] payload, String userTag, boolean userTagOnly) {

    public NewIov(long channelId, long since, long until, Object... payload) {
        this(channelId, since, until, payload, null, false);
    }

    public NewIov withUserTag(String tag, boolean only) {
        return new NewIov(channelId, since, until, payload, tag, only);
    }
}
