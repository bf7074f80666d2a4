package io.outpost.client;

/** A channel of a folder (one row of a {@code channels} answer). */
public record ChannelInfo(long channel, String name, String description) {
    static ChannelInfo of(Row r) {
        return new ChannelInfo(r.getLong("channel"), r.getString("name"), r.getString("description"));
    }
}
