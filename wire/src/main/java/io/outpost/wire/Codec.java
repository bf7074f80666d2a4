package io.outpost.wire;

import java.util.Locale;

/** The compression of an answer's body: the header's codec byte (docs/wire-format.md, "Header"). */
public enum Codec {
    /** The content as it is. */
    NONE(0),
    /** One zlib stream (RFC 1950). */
    ZLIB(1),
    /** One zstd frame (RFC 8878). */
    ZSTD(2);

    private final int code;

    Codec(int code) {
        this.code = code;
    }

    /** The codec byte on the wire. */
    public int code() {
        return code;
    }

    /** The codec with this byte, or null for an unknown one. */
    public static Codec ofCode(int code) {
        for (Codec c : values()) {
            if (c.code == code) {
                return c;
            }
        }
        return null;
    }

    /** The codec named in configuration, e.g. {@code zstd} (case-insensitive). */
    public static Codec parse(String name) {
        return valueOf(name.toUpperCase(Locale.ROOT));
    }
}
