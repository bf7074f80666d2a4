package io.outpost.store.model;

/** COOL folder versioning: single-version (one history per channel) or multi-version (HEAD, user tags, tags). */
public enum Versioning {
    SINGLE_VERSION(0, "SV"),
    MULTI_VERSION(1, "MV");

    private final int code;
    private final String shortName;

    Versioning(int code, String shortName) {
        this.code = code;
        this.shortName = shortName;
    }

    /** The value of NODES.FOLDER_VERSIONING, as in COOL. */
    public int code() {
        return code;
    }

    public String shortName() {
        return shortName;
    }

    public static Versioning fromCode(int code) {
        for (Versioning v : values()) {
            if (v.code == code) {
                return v;
            }
        }
        throw new IllegalArgumentException("unknown folder versioning code " + code);
    }

    public static Versioning parse(String s) {
        return switch (s.toUpperCase(java.util.Locale.ROOT)) {
            case "SV", "SINGLE", "SINGLE_VERSION" -> SINGLE_VERSION;
            case "MV", "MULTI", "MULTI_VERSION" -> MULTI_VERSION;
            default -> throw new IllegalArgumentException("versioning must be SV or MV, not '" + s + "'");
        };
    }
}
