package io.outpost.store.model;

/** COOL's orders for browse results. */
public enum ChannelOrder {
    CHANNEL_BEFORE_SINCE("I3.CHANNEL_ID, I3.IOV_SINCE"),
    SINCE_BEFORE_CHANNEL("I3.IOV_SINCE, I3.CHANNEL_ID"),
    CHANNEL_BEFORE_SINCE_DESC("I3.CHANNEL_ID, I3.IOV_SINCE DESC"),
    SINCE_DESC_BEFORE_CHANNEL("I3.IOV_SINCE DESC, I3.CHANNEL_ID");

    private final String orderBy;

    ChannelOrder(String orderBy) {
        this.orderBy = orderBy;
    }

    /** The ORDER BY list over COOL's main alias I3. */
    public String orderBy() {
        return orderBy;
    }
}
