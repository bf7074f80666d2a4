package io.outpost.store.model;

import java.util.Locale;

/** What a folder's validity keys mean: ns since the Unix epoch (UTC), or run-lumi = run &lt;&lt; 32 | lumi. */
public enum KeyType {
    TIME("time"),
    RUN_LUMI("run-lumi");

    private final String label;

    KeyType(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    public static KeyType parse(String s) {
        return switch (s.toLowerCase(Locale.ROOT)) {
            case "time" -> TIME;
            case "run-lumi", "runlumi", "run_lumi" -> RUN_LUMI;
            default -> throw new IllegalArgumentException("key type must be 'time' or 'run-lumi', not '" + s + "'");
        };
    }
}
