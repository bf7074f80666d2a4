package io.outpost.client;

/** Row order of a browse ({@code {order}} in docs/api.md). */
public enum Order {
    /** Channel, then since (COOL's default). */
    CHANNEL_SINCE("cs"),
    /** Since, then channel. */
    SINCE_CHANNEL("sc"),
    /** Channel, then since descending. */
    CHANNEL_SINCE_DESC("csd"),
    /** Since descending, then channel. */
    SINCE_DESC_CHANNEL("sdc");

    private final String code;

    Order(String code) {
        this.code = code;
    }

    /** The URL spelling, e.g. {@code cs}. */
    public String code() {
        return code;
    }

    public static Order ofCode(String code) {
        for (Order o : values()) {
            if (o.code.equalsIgnoreCase(code)) {
                return o;
            }
        }
        throw new IllegalArgumentException("unknown order " + code + " (cs, sc, csd or sdc)");
    }
}
